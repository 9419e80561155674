import { InvalidArgument, Unavailable } from '@svc/kit';
import { parseEndpointUrl, resolveEndpoint, type EndpointPolicy } from '../endpoint-address';

/** Answers from the resolver that mean the name does not exist (rather than that DNS is unreachable now). */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * A webhook URL a provider may register (the SSRF guard, docs/partner-webhooks.md): absolute HTTPS without
 * credentials, naming only public addresses now (the sender checks again at every attempt). A name that does not
 * resolve is INVALID_ARGUMENT naming `url`; a resolver that cannot answer now is UNAVAILABLE. Answers the URL as
 * normalised by WHATWG URL parsing.
 */
export async function checkedEndpointUrl(raw: string, policy: EndpointPolicy): Promise<string> {
  const url = parseEndpointUrl(raw.trim(), policy);
  try {
    await resolveEndpoint(url, policy);
  } catch (error) {
    if (error instanceof InvalidArgument) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (NO_SUCH_NAME.has(code))
      throw new InvalidArgument(`url: the host ${url.hostname} does not resolve`, { field: 'url' });
    throw new Unavailable(`url: the host ${url.hostname} could not be resolved now (${code || 'error'})`);
  }
  return url.href;
}
