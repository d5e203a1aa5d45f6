import type { SamlSp } from '../service/saml/index.js';
import { readSpMetadata, type SpMetadata } from './sp-metadata.js';

/** A registered SP's metadata, as the flows use it. */
export type SpMetadataOf = (sp: SamlSp) => SpMetadata;

/**
 * Reads each registered SP's metadata once, from the XML the service keeps as given: an SP's record never
 * changes (a new one is added in its place, with a new id), so its id names one document, and a flood of
 * requests naming an SP does not read its metadata again each time. It was read when the SP was added
 * (saml-sps add), so a refusal now is a record changed behind the service's back: an error, not an answer.
 */
export function spMetadataReader(): SpMetadataOf {
  const read = new Map<string, SpMetadata>();
  return (sp) => {
    const known = read.get(sp.id);
    if (known) return known;
    const result = readSpMetadata(sp.metadataXml);
    if (!result.ok) throw new Error(`the metadata of SAML SP ${sp.name} cannot be read: ${result.reason}`);
    read.set(sp.id, result.metadata);
    return result.metadata;
  };
}
