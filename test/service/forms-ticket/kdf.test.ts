/**
 * The SP 800-108 counter-mode HMAC-SHA-512 KDF (src/service/forms-ticket/kdf.ts) against Microsoft's own vectors,
 * copied from dotnet/aspnetcore@136a666a7645360e1e2c7d9f5e02b8daae7ef456
 * src/DataProtection/DataProtection/test/SP800_108/SP800_108Tests.cs (DeriveKeyWithContextHeader_Normal_Managed
 * and _LongKey_Managed). That code derives with the same fixed input as System.Web's SP800_108 and passes
 * contextHeader || context as the context; the lengths straddle one HMAC-SHA-512 block.
 */
import { deriveKeyForPurpose, sp800108HmacSha512 } from '../../../src/service/forms-ticket/kdf.js';

const LABEL = Buffer.from('label', 'utf8');
const CONTEXT = Buffer.from('contextHeadercontext', 'utf8');

describe('with the key "kdk"', () => {
  it.each([
    [63, 'V47WmHzPSkdC2vkLAomIjCzZlDOAetll3yJLcSvon7LJFjJpEN+KnSNp+gIpeydKMsENkflbrIZ/3s6GkEaH'],
    [64, 'mVaFM4deXLl610CmnCteNzxgbM/VkmKznAlPauHcDBn0le06uOjAKLHx0LfoU2/Ttq9nd78Y6Nk6wArmdwJgJg=='],
    [65, 'GaHPeqdUxriFpjRtkYQYWr5/iqneD/+hPhVJQt4rXblxSpB1UUqGqL00DMU/FJkX0iMCfqUjQXtXyfks+p++Ev4='],
  ])('derives %i bytes as .NET does', (length, expected) => {
    expect(sp800108HmacSha512(Buffer.from('kdk', 'utf8'), LABEL, CONTEXT, length).toString('base64')).toBe(expected);
  });
});

describe('with a 50,000-byte key (longer than an HMAC block: hashed first)', () => {
  const longKey = Buffer.from(Array.from({ length: 50_000 }, (_, i) => i & 0xff));

  it.each([
    [63, 'rt2hM6kkQ8hAXmkHx0TU4o3Q+S7fie6b3S1LAq107k++P9v8uSYA2G+WX3pJf9ZkpYrTKD7WUIoLkgA1R9lk'],
    [64, 'RKiXmHSrWq5gkiRSyNZWNJrMR0jDyYHJMt9odOayRAE5wLSX2caINpQmfzTH7voJQi3tbn5MmD//dcspghfBiw=='],
    [65, 'KedXO0zAIZ3AfnPqY1NnXxpC3HDHIxefG4bwD3g6nWYEc5+q7pjbam71Yqj0zgHMNC9Z7BX3wS1/tajFocRWZUk='],
  ])('derives %i bytes as .NET does', (length, expected) => {
    expect(sp800108HmacSha512(longKey, LABEL, CONTEXT, length).toString('base64')).toBe(expected);
  });
});

describe('deriveKeyForPurpose', () => {
  const master = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');

  it('is the KDF with the purpose as label, no context, and the master key\'s length', () => {
    const derived = deriveKeyForPurpose(master, 'FormsAuthentication.Ticket');
    expect(derived).toEqual(sp800108HmacSha512(master, Buffer.from('FormsAuthentication.Ticket'), Buffer.alloc(0), master.length));
    expect(derived).toHaveLength(master.length);
  });

  it('gives another key for another purpose', () => {
    expect(deriveKeyForPurpose(master, 'FormsAuthentication.Ticket')).not.toEqual(deriveKeyForPurpose(master, 'User.MachineKey.Protect'));
  });
});
