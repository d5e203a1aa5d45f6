import { readFileSync } from 'node:fs';
import { generateWsdlTypes } from '../../scripts/generate-wsdl-types.mjs';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

test('src/service/wsdl-types.ts is what the generator makes from wsdl/Authentication.wsdl (run npm run generate:types)', async () => {
  expect(await generateWsdlTypes(read('wsdl/Authentication.wsdl'))).toBe(read('src/service/wsdl-types.ts'));
});

test('the generated types follow the WSDL: a new parameter appears in the request type and the parameter list', async () => {
  const wsdl = read('wsdl/Authentication.wsdl').replace(
    '<s:element minOccurs="0" maxOccurs="1" name="token" type="s:string" />',
    '<s:element minOccurs="0" maxOccurs="1" name="token" type="s:string" />\n            <s:element minOccurs="0" maxOccurs="1" name="audience" type="s:string" />',
  );
  const generated = await generateWsdlTypes(wsdl);
  expect(generated).toContain('export interface AuthenticateTokenRequest {\n  securityPassword: string | null;\n  token: string | null;\n  audience: string | null;\n}');
  expect(generated).toContain("AuthenticateToken: ['securityPassword', 'token', 'audience'],");
});
