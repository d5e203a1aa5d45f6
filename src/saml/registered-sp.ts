import type { SamlSp } from '../service/saml/index.js';
import { readSpMetadata, type SpMetadata } from './sp-metadata.js';

/**
 * A registered SP's metadata, read again from the XML the service keeps as given. It was read when the SP was
 * added (saml-sps add), so a refusal now is a record changed behind the service's back: an error, not an answer.
 */
export function spMetadataOf(sp: SamlSp): SpMetadata {
  const read = readSpMetadata(sp.metadataXml);
  if (!read.ok) throw new Error(`the metadata of SAML SP ${sp.name} cannot be read: ${read.reason}`);
  return read.metadata;
}
