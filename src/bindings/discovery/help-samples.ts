import type { OperationName } from '../../service/wsdl-types.js';
import { CONTENT_TYPE } from '../asmx-response.js';
import type { BindingKey } from './bindings.js';
import { code, Markup, type Interpolation } from './markup.js';

/** Where the samples send their requests (the endpoint as the reader reached it), and the operation's parameters. */
export interface SampleTarget {
  readonly host: string;
  readonly path: string;
  readonly namespace: string;
  readonly parameters: readonly string[];
}

export interface Sample {
  readonly request: Markup;
  readonly response: Markup;
}

const STRING = new Markup('<var>string</var>');
const LENGTH = new Markup('<var>length</var>');

function lines(...rows: Markup[]): Markup {
  return new Markup(rows.map((row) => row.html).join('\n'));
}

function soapSample(prefix: 'soap' | 'soap12', envelopeNamespace: string, contentType: string, withSoapAction: boolean) {
  return (operation: OperationName, target: SampleTarget): Sample => {
    const envelope = (...body: Markup[]) => [
      code`<?xml version="1.0" encoding="utf-8"?>`,
      code`<${prefix}:Envelope xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:${prefix}="${envelopeNamespace}">`,
      code`  <${prefix}:Body>`,
      ...body,
      code`  </${prefix}:Body>`,
      code`</${prefix}:Envelope>`,
    ];
    return {
      request: lines(
        code`POST ${target.path} HTTP/1.1`,
        code`Host: ${target.host}`,
        code`Content-Type: ${contentType}`,
        code`Content-Length: ${LENGTH}`,
        ...(withSoapAction ? [code`SOAPAction: "${target.namespace}${operation}"`] : []),
        code``,
        ...envelope(
          code`    <${operation} xmlns="${target.namespace}">`,
          ...target.parameters.map((name) => code`      <${name}>${STRING}</${name}>`),
          code`    </${operation}>`,
        ),
      ),
      response: lines(
        code`HTTP/1.1 200 OK`,
        code`Content-Type: ${contentType}`,
        code`Content-Length: ${LENGTH}`,
        code``,
        ...envelope(
          code`    <${operation}Response xmlns="${target.namespace}">`,
          code`      <${operation}Result>${STRING}</${operation}Result>`,
          code`    </${operation}Response>`,
        ),
      ),
    };
  };
}

function formEncoded(target: SampleTarget): Interpolation {
  return target.parameters.map((name, i) => [i === 0 ? '' : '&', `${name}=`, STRING]);
}

function stringResponse(target: SampleTarget): Markup {
  return lines(
    code`HTTP/1.1 200 OK`,
    code`Content-Type: ${CONTENT_TYPE.xml}`,
    code`Content-Length: ${LENGTH}`,
    code``,
    code`<?xml version="1.0" encoding="utf-8"?>`,
    code`<string xmlns="${target.namespace}">${STRING}</string>`,
  );
}

/** Sample request and response per binding, with placeholders where .NET's help page puts them. */
export const SAMPLES: Readonly<Record<BindingKey, (operation: OperationName, target: SampleTarget) => Sample>> = {
  soap11: soapSample('soap', 'http://schemas.xmlsoap.org/soap/envelope/', CONTENT_TYPE.xml, true),
  soap12: soapSample('soap12', 'http://www.w3.org/2003/05/soap-envelope', CONTENT_TYPE.soap12, false),
  httpGet: (operation, target) => ({
    request: lines(code`GET ${target.path}/${operation}?${formEncoded(target)} HTTP/1.1`, code`Host: ${target.host}`),
    response: stringResponse(target),
  }),
  httpPost: (operation, target) => ({
    request: lines(
      code`POST ${target.path}/${operation} HTTP/1.1`,
      code`Host: ${target.host}`,
      code`Content-Type: application/x-www-form-urlencoded`,
      code`Content-Length: ${LENGTH}`,
      code``,
      code`${formEncoded(target)}`,
    ),
    response: stringResponse(target),
  }),
};
