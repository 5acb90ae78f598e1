/**
 * Headless Chromium for the browser tests, from the `@sparticuz/chromium` npm package: it ships
 * a brotli-compressed chromium-headless-shell (plus the NSS/expat libraries it links, a font and
 * SwiftShader) inside the package, so `npm ci` alone brings the browser — no system package,
 * no download, no install script.
 *
 * The package's `executablePath()` unpacks into the OS temp folder. It runs here in a child
 * process whose TMPDIR is a fresh staging folder, which is then renamed into place: a half
 * unpacked browser (an interrupted run, two suites starting at once) is never used.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

const require = createRequire(import.meta.url);

/** Flags for a closed network: no background connections, no sandbox (tests run as root). */
const ARGS = [
  "--no-sandbox",
  "--no-zygote",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

const UNPACK = `
const { default: Chromium, inflate } = await import("@sparticuz/chromium");
const { join } = await import("node:path");
const bin = join(process.argv[1], "bin");
await Chromium.executablePath(bin);
// Its libraries (NSS, NSPR, expat) are unpacked only on Amazon Linux by default; a bare
// machine may lack them too.
await inflate(join(bin, "al2023.tar.br"));
`;

function packageVersion(): { dir: string; version: string } {
  // The package exports only build/index.js; its folder is one level up.
  const dir = dirname(dirname(require.resolve("@sparticuz/chromium")));
  return { dir, version: (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version };
}

/** Unpacks the packaged Chromium once per package version; returns its folder. */
export function unpackChromium(): string {
  const { dir: pkg, version } = packageVersion();
  const dir = join(tmpdir(), `launchpad-chromium-${version}`);
  if (existsSync(join(dir, "chromium"))) return dir;
  const staging = mkdtempSync(join(tmpdir(), `launchpad-chromium-${version}-`));
  try {
    execFileSync(process.execPath, ["--input-type=module", "-e", UNPACK, pkg], { env: { ...process.env, TMPDIR: staging }, cwd: pkg, stdio: "pipe" });
    // The packaged fonts.conf names /tmp/fonts; point it at this folder instead.
    writeFileSync(
      join(staging, "fonts", "fonts.conf"),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${dir}/fonts</dir>\n  <cachedir>${dir}/fonts-cache</cachedir>\n</fontconfig>\n`,
    );
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process finished first: use its copy.
    if (existsSync(join(dir, "chromium"))) return dir;
    throw error;
  }
  return dir;
}

export type TestBrowser = {
  context: BrowserContext;
  /** Requests the page made to anything but this machine (aborted when `localOnly`). */
  blocked: string[];
  close: () => Promise<void>;
};

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Starts headless Chromium with a fresh profile. With `localOnly`, every request to a host other
 * than this machine is aborted and recorded in `blocked`.
 */
export async function launchBrowser(options: { localOnly?: boolean } = {}): Promise<TestBrowser> {
  const dir = unpackChromium();
  const userDataDir = mkdtempSync(join(tmpdir(), "chromium-profile-"));
  const libs = join(dir, "al2023", "lib");
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: join(dir, "chromium"),
    headless: true,
    args: ARGS,
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [libs, dir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
      FONTCONFIG_PATH: join(dir, "fonts"),
    },
  });
  const blocked: string[] = [];
  if (options.localOnly) {
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === "data:" || url.protocol === "blob:" || LOCAL_HOSTS.has(url.hostname)) return route.continue();
      blocked.push(url.href);
      return route.abort("blockedbyclient");
    });
  }
  return {
    context,
    blocked,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
