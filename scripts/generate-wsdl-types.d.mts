/** Types for the generator script, so tests can call it. */
export function generateWsdlTypes(wsdlText: string): Promise<string>;
