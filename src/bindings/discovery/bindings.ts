import type { Config } from '../../config/config.js';

export type BindingKey = keyof Config['bindings'];

export interface BindingInfo {
  readonly key: BindingKey;
  /** Appended to the service name to name the WSDL binding and port, as ASMX does. */
  readonly suffix: string;
  readonly title: string;
}

/** The four ASMX bindings in WSDL order. */
export const BINDINGS: readonly BindingInfo[] = [
  { key: 'soap11', suffix: 'Soap', title: 'SOAP 1.1' },
  { key: 'soap12', suffix: 'Soap12', title: 'SOAP 1.2' },
  { key: 'httpGet', suffix: 'HttpGet', title: 'HTTP GET' },
  { key: 'httpPost', suffix: 'HttpPost', title: 'HTTP POST' },
];

export function enabledBindings(config: Config): BindingInfo[] {
  return BINDINGS.filter((binding) => config.bindings[binding.key]);
}
