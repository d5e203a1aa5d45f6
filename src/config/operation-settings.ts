import { z } from 'zod';
import { OPERATION_PARAMETERS, type OperationName } from '../service/wsdl-types.js';
import { commaList, documentation, MAX_DOCUMENTATION, parseJsonObject } from './value-formats.js';

export const OPERATION_NAMES = Object.keys(OPERATION_PARAMETERS) as OperationName[];
/** The seed's two operations: the default WSDL is the reference service's. */
export const DEFAULT_OPERATIONS = 'AuthenticateCookie,AuthenticateToken';
const isOperationName = (name: string): name is OperationName => Object.hasOwn(OPERATION_PARAMETERS, name);

/** OPERATION_DOCUMENTATION: a JSON object of operation names to their wsdl:documentation. */
export const operationDocumentation = z
  .string()
  .transform((v, ctx) => {
    const parsed = parseJsonObject(v);
    const entries = parsed ? Object.entries(parsed) : [];
    const bad = entries.filter(([name, text]) => !isOperationName(name) || typeof text !== 'string' || !documentation.safeParse(text).success);
    if (!parsed || bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `must be a JSON object of operation names (${OPERATION_NAMES.join(', ')}) to texts of at most ${MAX_DOCUMENTATION} characters` });
      return z.NEVER;
    }
    return Object.fromEntries(entries) as Partial<Record<OperationName, string>>;
  });

/** OPERATIONS: operation names in any letter case, comma-separated; the operations in WSDL order. */
export const operationList = z
  .string()
  .transform((v, ctx) => {
    const names = commaList(v);
    const unknown = names.filter((name) => !OPERATION_NAMES.some((op) => op.toLowerCase() === name.toLowerCase()));
    if (names.length === 0 || unknown.length > 0) {
      const detail = unknown.length > 0 ? ` (not one: ${unknown.join(', ')})` : '';
      ctx.addIssue({ code: 'custom', message: `must be operations, comma-separated, of ${OPERATION_NAMES.join(', ')}${detail}` });
      return z.NEVER;
    }
    return OPERATION_NAMES.filter((op) => names.some((name) => name.toLowerCase() === op.toLowerCase()));
  });
