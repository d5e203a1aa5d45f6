import type { Config } from '../../config/config.js';
import { enabledBindings } from './bindings.js';
import type { EndpointDocument } from './endpoint-document.js';
import { escapeMarkup } from './escape.js';

/** The ?disco document as ASMX writes it: the contract, then one soap element per enabled SOAP binding. */
export function createDiscoDocument(config: Config): EndpointDocument {
  const namespace = escapeMarkup(config.soapNamespace);
  const bindingName = escapeMarkup(config.wsdlNames.binding);
  const soapBindings = enabledBindings(config).filter((binding) => binding.key === 'soap11' || binding.key === 'soap12');
  return {
    render(endpoint) {
      const address = escapeMarkup(endpoint);
      return [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<discovery xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.xmlsoap.org/disco/">',
        `  <contractRef ref="${address}?wsdl" docRef="${address}" xmlns="http://schemas.xmlsoap.org/disco/scl/" />`,
        // XmlSerializer numbers the prefixes it declares, so they follow the bindings actually listed.
        ...soapBindings.map(
          (binding, i) =>
            `  <soap address="${address}" xmlns:q${i + 1}="${namespace}" binding="q${i + 1}:${bindingName}${binding.suffix}" xmlns="http://schemas.xmlsoap.org/disco/soap/" />`,
        ),
        '</discovery>',
      ].join('\n');
    },
  };
}
