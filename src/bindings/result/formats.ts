import type { ResultFormat } from '../../config/config.js';
import type { Outcome } from '../../service/authentication.js';
import type { MemberRow } from '../../service/index.js';
import { escapeXmlAttribute } from '../xml-text.js';
import { NOT_SIGNED_IN } from './not-signed-in.js';

export type ResultRenderer = (outcome: Outcome) => string;

function fullName(member: MemberRow): string {
  return [member.firstName, member.lastName].filter(Boolean).join(' ');
}

/**
 * ISGweb/iBridge: an XML document in the string, declared UTF-16 because the Java client re-encodes it so. In
 * upper case: a theme deployed at ISGweb associations replaces exactly `UTF-16` by `UTF-8` before it parses.
 */
const IBRIDGE_DECLARATION = '<?xml version="1.0" encoding="UTF-16"?>';

function ibridge(outcome: Outcome): string {
  if (!outcome.signedIn) {
    const { number, description } = NOT_SIGNED_IN[outcome.operation];
    return `${IBRIDGE_DECLARATION}<iBridge><Errors><Error Number="${number}" Description="${escapeXmlAttribute(description)}" /></Errors></iBridge>`;
  }
  const m = outcome.member;
  const attributes: Array<[string, string]> = [
    ['ID', m.id],
    ['TOKEN', outcome.token],
    ['EMAIL', m.email],
    ['FIRSTNAME', m.firstName],
    ['LASTNAME', m.lastName],
    ['FULL_NAME', fullName(m)],
  ];
  const rendered = attributes.map(([name, value]) => `${name}="${escapeXmlAttribute(value)}"`).join(' ');
  return `${IBRIDGE_DECLARATION}<iBridge><User ${rendered} /></iBridge>`;
}

/** CRM4M: a JSON object in the string. A failure never contains the word "success". */
function json(outcome: Outcome): string {
  if (!outcome.signedIn) {
    return JSON.stringify({ status: 'Failure', message: NOT_SIGNED_IN[outcome.operation].description });
  }
  const m = outcome.member;
  return JSON.stringify({
    status: 'Success',
    message: '',
    contactid: m.id,
    pa_token: outcome.token,
    emailaddress1: m.email,
    firstname: m.firstName,
    lastname: m.lastName,
    fullname: fullName(m),
  });
}

/** The member id, or "" when nobody is signed in. */
function plain(outcome: Outcome): string {
  return outcome.signedIn ? outcome.member.id : '';
}

export const RESULT_RENDERERS: Record<ResultFormat, ResultRenderer> = { ibridge, json, plain };
