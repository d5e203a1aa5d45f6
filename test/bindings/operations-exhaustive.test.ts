/**
 * The operation table is checked by the compiler: an operation added to the WSDL, with its types regenerated,
 * fails the type check until the table has a handler for it. The check compiles src/ in memory with the
 * regenerated types in place of src/service/wsdl-types.ts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { generateWsdlTypes } from '../../scripts/generate-wsdl-types.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WSDL = readFileSync(`${ROOT}wsdl/Authentication.wsdl`, 'utf8');
const TYPES_FILE = `${ROOT}src/service/wsdl-types.ts`;
const TABLE_FILE = `${ROOT}src/bindings/operations.ts`;

/** The WSDL with every element, message and operation of AuthenticateToken copied under another name. */
function withCopiedOperation(wsdl: string, name: string): string {
  return wsdl.replace(/(\n *)(<(s:element|wsdl:message|wsdl:operation) name="AuthenticateToken(\w*)"[\s\S]*?<\/\3>)/g, (block, indent: string, element: string) =>
    `${block}${indent}${element.replaceAll('AuthenticateToken', name)}`,
  );
}

/** The type errors of src/ compiled with these generated types, by file. */
function typeErrors(generatedTypes: string): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(`${ROOT}tsconfig.build.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('tsconfig.build.json does not parse');
  const options = { ...config.options, noEmit: true, incremental: false };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (file === TYPES_FILE ? generatedTypes : readFile(file));
  const program = ts.createProgram(config.fileNames, options, host);
  const errors = new Map<string, string[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file?.fileName ?? '';
    errors.set(file, [...(errors.get(file) ?? []), ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')]);
  }
  return errors;
}

test('the copy adds exactly one operation to the generated types', async () => {
  const types = await generateWsdlTypes(withCopiedOperation(WSDL, 'NewOperation'));
  expect(types).toContain("NewOperation: ['securityPassword', 'token'],");
  expect(types).toContain("NewOperation: 'NewOperationResult',");
  expect(types).toContain('export interface NewOperationResponse {');
});

test('with the WSDL as it is, src/ type-checks', async () => {
  expect([...typeErrors(await generateWsdlTypes(WSDL)).entries()]).toEqual([]);
});

test('an operation added to the WSDL without a handler fails the type check in the operation table', async () => {
  const errors = typeErrors(await generateWsdlTypes(withCopiedOperation(WSDL, 'NewOperation')));
  expect(errors.get(TABLE_FILE)).toEqual([expect.stringMatching(/Property 'NewOperation' is missing/)]);
});
