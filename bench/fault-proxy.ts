/**
 * A TCP proxy in front of a server (the RPC node, PostgreSQL) that the soak uses to cut it off
 * the way providers and databases fail: `refuse` stops listening and resets every open
 * connection (a database restarting, an endpoint gone: connections refused); `freeze` keeps
 * every connection open and forwards nothing, holding new ones unanswered (a frozen node or a
 * partition: requests time out). `restore` ends either.
 */
import { type Server, type Socket, connect, createServer } from "node:net";
import { freePort } from "../devnet/ports.js";

export type FaultProxy = {
  /** `target` with the proxy's host and port. */
  url: string;
  refuse: () => Promise<void>;
  freeze: () => void;
  restore: () => Promise<void>;
  close: () => Promise<void>;
};

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstreamUrl = new URL(target);
  const port = await freePort();
  const sockets = new Set<Socket>();
  let frozen = false;
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        sockets.add(client);
        client.on("close", () => sockets.delete(client));
        client.on("error", () => client.destroy());
        const upstream = connect(Number(upstreamUrl.port), upstreamUrl.hostname);
        sockets.add(upstream);
        upstream.on("close", () => sockets.delete(upstream));
        upstream.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
        client.on("error", () => upstream.destroy());
        client.on("data", (b) => void (frozen || upstream.write(b)));
        upstream.on("data", (b) => void (frozen || client.write(b)));
        client.on("end", () => upstream.end());
        upstream.on("end", () => client.end());
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        resolve();
      });
    });
  const stopListening = () =>
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
  return {
    url: url.toString().replace(/\/$/, ""),
    refuse: stopListening,
    freeze: () => {
      frozen = true;
    },
    restore: async () => {
      // Bytes held while frozen are dropped with their connections: the clients time out and retry.
      if (frozen) for (const sock of sockets) sock.destroy();
      frozen = false;
      if (!server) await listen();
    },
    close: stopListening,
  };
}
