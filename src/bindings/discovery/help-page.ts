import type { Config } from '../../config/config.js';
import type { OperationName } from '../../service/wsdl-types.js';
import { enabledBindings, type BindingInfo } from './bindings.js';
import { ENDPOINT_FILE } from '../../web/endpoint-url.js';
import { SAMPLES, type SampleTarget } from './help-samples.js';
import { html, Markup } from './markup.js';

export interface HelpPages {
  /** The operation's page when `operation` names one, otherwise the service's page. */
  render(endpoint: string, operation: string | undefined): string;
}

/** What each operation does, when the deployment's documentation (OPERATION_DOCUMENTATION) does not say. */
const DESCRIPTIONS: Readonly<Record<OperationName, string>> = {
  AuthenticateCookie: 'Returns the member signed in with the given login cookie, for the given cookie domain.',
  AuthenticateToken: 'Returns the member signed in with the given session token.',
  AuthenticateUser: "Checks the member's username (or email) and password and, when they are right, signs the member in: returns the member with a new session token.",
  DeleteUserSession: 'Ends the session of the given token.',
  Login: "Checks the member's username (or email) and password, and returns the member when they are right, without signing in.",
  ValidateUser: "Checks the member's username (or email) and password, and returns the member when they are right, without signing in.",
};

const STYLE = new Markup(`
body { font-family: system-ui, sans-serif; line-height: 1.5; margin: 0 auto; max-width: 60rem; padding: 1rem 1.5rem; color: #1a1a1a; }
header { border-bottom: 1px solid #ccc; margin-bottom: 1rem; }
.kind { margin: 0; color: #555; text-transform: uppercase; letter-spacing: 0.05em; font-size: 0.85rem; }
h1 { margin: 0 0 0.5rem; }
dt { font-weight: bold; }
dd { margin: 0 0 0.5rem 1.5rem; }
pre { background: #f4f4f4; border: 1px solid #ddd; padding: 0.75rem; overflow-x: auto; }
var { font-style: normal; font-weight: bold; color: #00408a; }
form { background: #f4f4f4; border: 1px solid #ddd; padding: 0.75rem; }
.field { margin-bottom: 0.5rem; }
label { display: inline-block; min-width: 10rem; font-family: monospace; }
input { font: inherit; padding: 0.2rem; }
`);

export function createHelpPages(config: Config): HelpPages {
  const bindings = enabledBindings(config);
  const httpPost = config.bindings.httpPost;
  const offered = new Set<string>(config.operations);
  const isOffered = (name: string | undefined): name is OperationName => name !== undefined && offered.has(name);
  const description = (operation: OperationName) => config.documentation.operations[operation] ?? DESCRIPTIONS[operation];
  const parameterList = (operation: OperationName) =>
    html`${config.operationParameters[operation].map((name, i) => html`${i === 0 ? '' : ', '}<code>${name}</code>`)}`;

  function page(title: string, content: Markup): string {
    return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="alternate" type="text/xml" href="${ENDPOINT_FILE}?disco">
<style>${STYLE}</style>
</head>
<body>
<header>
<p class="kind">Web Service</p>
<h1>${config.serviceName}</h1>
</header>
<main>
${content}
</main>
</body>
</html>
`.html;
  }

  function servicePage(endpoint: string): string {
    const operations = config.operations.map(
      (operation) => html`<li><a href="${ENDPOINT_FILE}?op=${operation}">${operation}</a>: ${description(operation)}
Parameters: ${parameterList(operation)}. Returns a <code>string</code>.</li>
`,
    );
    return page(
      `${config.serviceName} Web Service`,
      html`${config.documentation.service === undefined ? '' : html`<p>${config.documentation.service}</p>
`}<dl>
<dt>Namespace</dt><dd><code>${config.soapNamespace}</code></dd>
<dt>Endpoint</dt><dd><code>${endpoint}</code></dd>
<dt>Protocols</dt><dd>${bindings.map((binding) => binding.title).join(', ')}</dd>
</dl>
<p>The following operations are supported. For a formal definition, see the <a href="${ENDPOINT_FILE}?WSDL">service description (WSDL)</a>.</p>
<h2>Operations</h2>
<ul>
${operations}</ul>`,
    );
  }

  function testForm(endpoint: string, operation: OperationName): Markup {
    if (!httpPost) return html`<p>The test form is available only when the HTTP POST binding is enabled.</p>`;
    const fields = config.operationParameters[operation].map(
      (name) => html`<div class="field"><label for="param-${name}">${name}</label>
<input type="text" id="param-${name}" name="${name}" autocomplete="off" spellcheck="false"></div>
`,
    );
    return html`<p>To test the operation over the HTTP POST binding, fill in the parameters and click Invoke.</p>
<form method="post" action="${endpoint}/${operation}">
${fields}<button type="submit">Invoke</button>
</form>`;
  }

  function sampleSection(binding: BindingInfo, operation: OperationName, target: SampleTarget): Markup {
    const sample = SAMPLES[binding.key](operation, target);
    return html`<section aria-labelledby="sample-${binding.key}">
<h3 id="sample-${binding.key}">${binding.title}</h3>
<p>The following is a sample ${binding.title} request and response. The placeholders shown need to be replaced with actual values.</p>
<h4>Request</h4>
<pre><code>${sample.request}</code></pre>
<h4>Response</h4>
<pre><code>${sample.response}</code></pre>
</section>
`;
  }

  function operationPage(endpoint: string, operation: OperationName): string {
    const url = new URL(endpoint);
    const target: SampleTarget = { host: url.host, path: url.pathname, namespace: config.soapNamespace, parameters: config.operationParameters[operation] };
    return page(
      `${operation} - ${config.serviceName} Web Service`,
      html`<p><a href="${ENDPOINT_FILE}">All operations</a></p>
<h2>${operation}</h2>
<p>${description(operation)} Parameters: ${parameterList(operation)}. Returns a <code>string</code>.</p>
<h3>Test</h3>
${testForm(endpoint, operation)}
${bindings.map((binding) => sampleSection(binding, operation, target))}`,
    );
  }

  return {
    render: (endpoint, operation) => (isOffered(operation) ? operationPage(endpoint, operation) : servicePage(endpoint)),
  };
}
