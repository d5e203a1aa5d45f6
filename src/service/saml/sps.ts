import { randomUUID } from 'node:crypto';
import { StoreConflictError, type SamlSpRow, type Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { CLI_ACTOR, type EventContext, type EventService } from '../events.js';
import type { ShortLivedCache } from '../short-lived-cache.js';
import { isValidText } from '../valid-text.js';
import { checkedSettings, type SamlSpSettings } from './settings.js';

/** A registered SAML service provider, its settings read. */
export interface SamlSp {
  id: string;
  name: string;
  entityId: string;
  /** Its metadata XML exactly as given (src/saml/sp-metadata.ts reads it). */
  metadataXml: string;
  settings: SamlSpSettings;
  createdAt: number;
}

export interface SamlSpInput {
  name: string;
  entityId: string;
  metadataXml: string;
  settings: SamlSpSettings;
}

const MAX_NAME_LENGTH = 200;
const MAX_ENTITY_ID_LENGTH = 1024;

/**
 * The service providers the identity provider serves, registered by the admin. Whether any is registered (the
 * identity provider is off until one is) is cached for CACHE_TTL_MS, and forgotten here on a change.
 */
export class SamlSpService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly registered: ShortLivedCache<boolean>,
    private readonly events: EventService,
  ) {}

  /**
   * The SP as stored; SAML_SP_EXISTS when its name or entity id is taken, SAML_SP_INVALID for what cannot be stored.
   * Recorded as site-added, by whoever `by` says (the CLI's unless told).
   */
  async add(input: SamlSpInput, by: EventContext = { actor: CLI_ACTOR }): Promise<SamlSp> {
    if (input.name === '' || input.name.length > MAX_NAME_LENGTH || !isValidText(input.name)) {
      throw new ServiceError('SAML_SP_INVALID', `the name must have 1 to ${MAX_NAME_LENGTH} characters`);
    }
    if (input.entityId === '' || input.entityId.length > MAX_ENTITY_ID_LENGTH || !isValidText(input.entityId)) {
      throw new ServiceError('SAML_SP_INVALID', `the entity id must have 1 to ${MAX_ENTITY_ID_LENGTH} characters`);
    }
    const sp: SamlSp = { id: randomUUID(), ...input, settings: checkedSettings(input.settings), createdAt: this.clock() };
    try {
      await this.store.createSamlSp({ ...sp, settings: JSON.stringify(sp.settings) });
    } catch (error) {
      if (error instanceof StoreConflictError) throw new ServiceError('SAML_SP_EXISTS', `${input.name} (${input.entityId})`);
      throw error;
    }
    this.registered.clear();
    this.events.record({ ...by, type: 'site-added', via: sp.name, outcome: 'saml-sp' });
    return sp;
  }

  async list(): Promise<SamlSp[]> {
    return (await this.store.listSamlSps()).map(toSp);
  }

  /** The SP with this name, or null. */
  async find(name: string): Promise<SamlSp | null> {
    const row = await this.store.getSamlSpByName(name);
    return row === null ? null : toSp(row);
  }

  /** The SP with this entity id (the Issuer of its messages), or null. */
  async findByEntityId(entityId: string): Promise<SamlSp | null> {
    const row = await this.store.getSamlSpByEntityId(entityId);
    return row === null ? null : toSp(row);
  }

  async findById(id: string): Promise<SamlSp | null> {
    const row = await this.store.getSamlSp(id);
    return row === null ? null : toSp(row);
  }

  /** Removes the SP, its session participants and its pending requests; false when no SP has this name. */
  /** Whether it was there to remove; recorded as site-removed, by whoever `by` says. */
  async remove(name: string, by: EventContext = { actor: CLI_ACTOR }): Promise<boolean> {
    const row = await this.store.getSamlSpByName(name);
    const removed = row !== null && (await this.store.deleteSamlSp(row.id));
    this.registered.clear();
    if (removed) this.events.record({ ...by, type: 'site-removed', via: name, outcome: 'saml-sp' });
    return removed;
  }

  /** Whether any SP is registered. */
  async any(): Promise<boolean> {
    return (await this.registered.fetch('any', this.clock(), () => this.store.hasSamlSps())) ?? false;
  }
}

function toSp(row: SamlSpRow): SamlSp {
  return { ...row, settings: JSON.parse(row.settings) as SamlSpSettings };
}
