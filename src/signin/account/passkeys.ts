import type { RequestHandler } from 'express';
import { MAX_PASSKEY_NAME_LENGTH } from '../../service/passkeys.js';
import { text } from '../form.js';
import type { PasskeyCeremony } from '../passkey-ceremony.js';
import { relyingParty } from '../passkey-party.js';
import type { AccountKit } from './kit.js';

/** A passkey's name as given: trimmed, its runs of white space made one space. */
function nameOf(given: string | undefined): string {
  return (given ?? '').trim().replace(/\s+/g, ' ');
}

/** The options for adding a passkey (JSON), only for a recent sign-in (PasskeyService.isRecent). */
export function passkeyOptions(account: AccountKit, ceremony: PasskeyCeremony): RequestHandler {
  const { pages, signedOf } = account;
  return ceremony.options(async (_req, res, rp) => {
    const { member, session } = signedOf(res);
    const ceremony = await pages.services.passkeys.registrationOptions(member, session, rp);
    return ceremony ?? { refused: 'For your security, adding a passkey needs a fresh sign-in. Reload the page to sign in again.' };
  });
}

/**
 * Adds the passkey the browser made, named for the device it was made on ("Chrome on Android"); the member can
 * rename it. The member is told by mail.
 */
export function addPasskey(account: AccountKit, ceremony: PasskeyCeremony): RequestHandler {
  const { pages, signedOf, showAccount, log, done } = account;
  return async (req, res) => {
    const { member, session } = signedOf(res);
    const { ownOrigin, client, device, requestId } = pages.requestContext(req);
    const nonce = ceremony.takeNonce(req, res);
    const rp = relyingParty(pages.config, ownOrigin);
    const answer = ceremony.answer(req);
    if (!rp || answer === undefined) return showAccount(req, res, 400, { problem: { form: 'passkeys', reason: 'unreadable' } });
    const name = (device ?? 'Passkey').slice(0, MAX_PASSKEY_NAME_LENGTH);
    const result = await pages.services.passkeys.register(member, session, nonce, answer, rp, name, { by: 'account', from: { client, device }, requestId });
    if (!result.ok) {
      log(req, res, `passkey-${result.reason}`, { action: 'add-passkey' });
      return showAccount(req, res, result.reason === 'refused' ? 401 : 400, { problem: { form: 'passkeys', reason: result.reason } });
    }
    log(req, res, 'passkey-added');
    done(res, 'passkey-added');
  };
}

/** Renames one of the member's passkeys. */
export function renamePasskey(account: AccountKit): RequestHandler {
  const { pages, signedOf, showAccount, log, done } = account;
  return async (req, res) => {
    const { member } = signedOf(res);
    const id = text(req.body, 'passkey') ?? '';
    const name = nameOf(text(req.body, 'name'));
    if (!name || name.length > MAX_PASSKEY_NAME_LENGTH) {
      return showAccount(req, res, 400, { problem: { form: 'passkey-name', passkey: id, reason: name ? 'name-too-long' : 'name-missing' } });
    }
    if (!(await pages.services.passkeys.rename(member.id, id, name))) return showAccount(req, res, 400, { problem: { form: 'passkeys', reason: 'not-found' } });
    log(req, res, 'passkey-renamed');
    done(res, 'passkey-renamed');
  };
}

/** Removes one of the member's passkeys: it signs nobody in from now on. */
export function removePasskey(account: AccountKit): RequestHandler {
  const { pages, signedOf, showAccount, log, done } = account;
  return async (req, res) => {
    const { member } = signedOf(res);
    const { client, device, requestId } = pages.requestContext(req);
    const id = text(req.body, 'passkey') ?? '';
    if (!(await pages.services.passkeys.remove(member.id, id, { by: 'account', from: { client, device }, requestId }))) {
      return showAccount(req, res, 400, { problem: { form: 'passkeys', reason: 'not-found' } });
    }
    log(req, res, 'passkey-removed');
    done(res, 'passkey-removed');
  };
}
