import type { Store } from '../store/store.js';
import { ServiceError } from './errors.js';
import { Secrets } from './secrets.js';

const FINGERPRINT_SETTING = 'secret_key_fingerprint';

/**
 * Binds the store to one server key: the first instance to open it records a fingerprint of its key (a keyed
 * hash of a constant, from which the key cannot be recovered), and an instance with another key is refused
 * before it answers anybody. Every hash and sealed token in the store was made with that key: with another
 * one, the instance would recognise no caller and no session that the others issued.
 */
export async function checkDeploymentKey(store: Store, secretKey: Buffer): Promise<void> {
  const fingerprint = new Secrets(secretKey).hash('key-fingerprint', 'authentication-asmx');
  const recorded = await store.claimSetting(FINGERPRINT_SETTING, fingerprint);
  if (recorded !== fingerprint) {
    throw new ServiceError('SECRET_KEY_MISMATCH', 'set SECRET_KEY to the key the other instances use, or DATA_DIR to the directory that holds its secret.key');
  }
}
