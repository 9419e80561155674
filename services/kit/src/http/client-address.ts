/**
 * The address a request came from. `trustedProxyHops` is how many proxies in front of the gateway append to
 * X-Forwarded-For (an ingress controller: 1). With 0 the header is ignored, as anyone can send it; with N the
 * address is the one the outermost trusted proxy saw: the Nth entry from the right of X-Forwarded-For followed by
 * the socket's peer. Entries a client wrote itself, further left, are never used.
 */
export function clientAddress(socketAddress: string, forwardedFor: string | null, trustedProxyHops: number): string {
  if (trustedProxyHops <= 0) return socketAddress;
  const chain = [
    ...(forwardedFor ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    socketAddress,
  ];
  return chain[Math.max(0, chain.length - 1 - trustedProxyHops)] ?? socketAddress;
}
