/**
 * A small deployment context for the devnet: viem clients for the operator, and `deploy` /
 * `write` helpers that wait for the receipt and fail loudly on a revert.
 */
import { createRequire } from "node:module";
import {
  type Abi,
  type Account,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Artifact } from "./compile.js";

const require = createRequire(import.meta.url);

export function devnetChain(chainId: number, rpcUrl: string) {
  return defineChain({
    id: chainId,
    name: "devnet",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export type DevnetContext = {
  rpcUrl: string;
  chainId: number;
  account: Account & { address: Address };
  publicClient: PublicClient;
  walletClient: WalletClient;
  deploy: (artifact: Artifact, args?: readonly unknown[]) => Promise<Address>;
  write: (address: Address, abi: Abi, functionName: string, args?: readonly unknown[], value?: bigint) => Promise<Hex>;
  read: <T = unknown>(address: Address, abi: Abi, functionName: string, args?: readonly unknown[]) => Promise<T>;
};

export function createDevnetContext(rpcUrl: string, chainId: number, privateKey: Hex): DevnetContext {
  const chain = devnetChain(chainId, rpcUrl);
  const account = privateKeyToAccount(privateKey);
  const transport = http(rpcUrl, { retryCount: 0 });
  // No block-number cache (viem keeps one for a polling interval): a context is shared by whoever
  // acts as this account, and a head read right after a rollback or an `anvil_mine` must be the
  // node's head, not the one read 50 ms before.
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 }) as PublicClient;
  const walletClient = createWalletClient({ chain, transport, account, pollingInterval: 50 });

  async function confirm(hash: Hex, what: string): Promise<{ contractAddress?: Address | null }> {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 60_000 }).catch(async (error: unknown) => {
      throw new Error(`${what}: no receipt for ${hash} in 60 s (${await unmined(hash)})`, { cause: error });
    });
    if (receipt.status !== "success") throw new Error(`${what} reverted (tx ${hash})`);
    return receipt;
  }

  /** Why a transaction may wait unmined: its nonce against the account's mined and pending counts, the node's head and mining mode. */
  async function unmined(hash: Hex): Promise<string> {
    const facts = await Promise.allSettled([
      publicClient.getTransaction({ hash }).then((t) => `its nonce ${t.nonce}`),
      publicClient.getTransactionCount({ address: account.address, blockTag: "latest" }).then((n) => `${account.address} has ${n} mined`),
      publicClient.getTransactionCount({ address: account.address, blockTag: "pending" }).then((n) => `${n} pending`),
      publicClient.getBlockNumber().then((n) => `head ${n}`),
      publicClient.request({ method: "anvil_getAutomine" } as never).then((a) => `automine ${a}`),
    ]);
    return facts.map((f) => (f.status === "fulfilled" ? f.value : `(${(f.reason as Error).message.split("\n")[0]})`)).join(", ");
  }

  return {
    rpcUrl,
    chainId,
    account,
    publicClient,
    walletClient,
    async deploy(artifact, args = []) {
      const hash = await walletClient.deployContract({
        abi: artifact.abi,
        bytecode: artifact.bytecode,
        args: args as unknown[],
        account,
        chain,
      });
      const receipt = await confirm(hash, "deployment");
      if (!receipt.contractAddress) throw new Error(`deployment ${hash} created no contract`);
      return getAddress(receipt.contractAddress);
    },
    async write(address, abi, functionName, args = [], value) {
      const request = { address, abi, functionName, args, value, account, chain } as never;
      const hash = await walletClient.writeContract({ ...(request as object), gas: withGasMargin(await publicClient.estimateContractGas(request)) } as never);
      await confirm(hash, `${functionName} on ${address}`);
      return hash;
    },
    async read(address, abi, functionName, args = []) {
      return (await publicClient.readContract({ address, abi, functionName, args } as never)) as never;
    },
  };
}

/**
 * Gas limit for an estimate: +25%. An estimate holds for the state it ran on; a transaction
 * mined a block later (a new timestamp written to storage, another account's swap in the same
 * pool first) can need more and would run out of gas without a margin.
 */
export function withGasMargin(estimate: bigint): bigint {
  return estimate + estimate / 4n;
}

/** Loads a Uniswap artifact shipped in an npm package (hardhat or foundry layout). */
export function uniswapArtifact(path: string): Artifact {
  const json = require(path) as {
    abi: Abi;
    bytecode: string | { object: string };
    deployedBytecode: string | { object: string };
  };
  const hex = (v: string | { object: string }) => (typeof v === "string" ? v : v.object) as Hex;
  return { abi: json.abi, bytecode: hex(json.bytecode), deployedBytecode: hex(json.deployedBytecode) };
}
