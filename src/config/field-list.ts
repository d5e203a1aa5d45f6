import { z } from 'zod';
import { EXTRA_KEY } from '../service/extra-key.js';
import { EXTRA_PREFIX, type ChosenField } from './result-fields.js';
import { commaList } from './value-formats.js';

/** A comma-separated choice of a catalogue's fields and the member's free-form attributes (`attr:<key>`). */
export function fieldList<Name extends string>(catalogue: readonly Name[], example: string, reserved: readonly string[] = []) {
  return z.string().transform((v, ctx) => {
    const fields: ChosenField<Name>[] = [];
    for (const entry of commaList(v)) {
      const key = entry.startsWith(EXTRA_PREFIX) ? entry.slice(EXTRA_PREFIX.length) : undefined;
      if (key !== undefined && reserved.includes(key)) {
        ctx.addIssue({ code: 'custom', message: `"${entry}" would repeat the ${key} every result has` });
        return z.NEVER;
      }
      if (key !== undefined && EXTRA_KEY.test(key)) fields.push({ kind: 'extra', key });
      else if ((catalogue as readonly string[]).includes(entry)) fields.push({ kind: 'known', name: entry as Name });
      else {
        ctx.addIssue({ code: 'custom', message: `"${entry}" is not one of ${catalogue.join(', ')}, nor ${EXTRA_PREFIX}<key> (e.g. ${example})` });
        return z.NEVER;
      }
    }
    const names = fields.map((field) => (field.kind === 'known' ? field.name : field.key));
    const repeated = names.find((name, i) => names.indexOf(name) !== i);
    if (repeated !== undefined) {
      ctx.addIssue({ code: 'custom', message: `names "${repeated}" twice` });
      return z.NEVER;
    }
    return fields;
  });
}
