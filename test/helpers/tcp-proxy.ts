/**
 * A TCP proxy in front of a server (an RPC node, a database) that a test can stop and start
 * again on the same port: stopped, nothing listens (connections are refused, ECONNREFUSED, as
 * when a provider's endpoint goes away) and every open connection is reset; started, it
 * listens and forwards again.
 */
import { type Server, type Socket, connect, createServer } from "node:net";
import { freePort } from "./ports.js";

export type TcpProxy = {
  /** `target` with the proxy's host and port. */
  url: string;
  port: number;
  /** Stops listening and resets every open connection: new ones are refused. */
  stop: () => Promise<void>;
  /** Listens again on the same port. */
  start: () => Promise<void>;
  close: () => Promise<void>;
};

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const upstreamUrl = new URL(target);
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(Number(upstreamUrl.port), upstreamUrl.hostname);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on("close", () => sockets.delete(sock));
          sock.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      for (const sock of sockets) sock.resetAndDestroy();
      if (!s) return resolve();
      s.close(() => resolve());
    });
  await listen();
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return { url: url.toString().replace(/\/$/, ""), port, stop, start: () => (server ? Promise.resolve() : listen()), close: stop };
}
