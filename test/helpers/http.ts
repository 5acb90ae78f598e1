import type { AddressInfo } from "node:net";
import { createServer } from "node:http";

/** A response read once: status, text, JSON when it parses, headers. */
export type Answer = { status: number; json: any; text: string; headers: Headers };

export async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** The `next` events of a GraphQL SSE stream (graphql-yoga's "distinct connections" mode), parsed. */
export async function* sseEvents(res: Response): AsyncGenerator<any> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const chunk = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const dataLine = chunk.split("\n").find((l) => l.startsWith("data:"));
      if (dataLine && chunk.includes("event: next")) yield JSON.parse(dataLine.slice(5));
    }
  }
}

/**
 * Serves a fetch handler (a Hono app's `fetch`) over HTTP on 127.0.0.1, for a browser or an
 * outside client to reach an app built in memory, with no ponder behind it.
 */
export async function serveFetch(handler: (request: Request) => Response | Promise<Response>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD" && chunks.length > 0;
      const response = await handler(
        new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined }),
      );
      res.writeHead(response.status, [...response.headers].flat());
      if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`the test server's handler threw: ${(error as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
