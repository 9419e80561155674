import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostPageFile {
  body: string;
  type?: string;
}

/**
 * The customer's website in browser tests: a page server on its own origin, `http://localhost:<port>`, while the
 * stack answers on `http://127.0.0.1:<port>`, so the widget is cross-origin to the page as it is in production.
 * Pages are set per test; anything else is 404.
 */
export class HostPage {
  private server: Server | undefined;
  private readonly files = new Map<string, HostPageFile>();

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const file = this.files.get(new URL(request.url ?? '/', 'http://localhost').pathname);
      if (!file) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': file.type ?? 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(file.body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  get origin(): string {
    return `http://localhost:${(this.server?.address() as AddressInfo).port}`;
  }

  /** Serves `body` at `pathname` and answers its full URL. */
  page(pathname: string, body: string, type?: string): string {
    this.files.set(pathname, { body, type });
    return `${this.origin}${pathname}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
