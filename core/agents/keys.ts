/**
 * Agent wallet keys at rest: generated server-side, encrypted with AES-256-GCM under a key
 * derived (HKDF-SHA256) from `AGENT_KEY_SECRET`, bound to the agent id and wallet address as
 * additional authenticated data, so a ciphertext moved to another row does not decrypt.
 * A key is never returned by the API nor logged.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { type Address, type Hex, bytesToHex, getAddress } from "viem";
import { type LocalAccount, privateKeyToAccount } from "viem/accounts";
import { ServiceError } from "../errors.js";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** An agent wallet key that cannot be encrypted or decrypted with AGENT_KEY_SECRET. */
export class WalletKeyError extends ServiceError {
  override name = "WalletKeyError";
  constructor(message: string) {
    super(message, { code: "NOT_CONFIGURED" });
  }
}

function encryptionKey(secret: string): Buffer {
  if (secret.length < 32) throw new WalletKeyError("AGENT_KEY_SECRET must be at least 32 characters");
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.from("launchpad agent wallets"), Buffer.from(`wallet-key ${VERSION}`), 32));
}

const aad = (agentId: string, wallet: Address) => Buffer.from(`${agentId}:${getAddress(wallet)}`, "utf8");

/** `v1:<base64 of iv | tag | ciphertext>`. */
export function encryptWalletKey(secret: string, privateKey: Hex, agentId: string, wallet: Address): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", encryptionKey(secret), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(agentId, wallet));
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(privateKey.slice(2), "hex")), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64")}`;
}

export function decryptWalletKey(secret: string, encrypted: string, agentId: string, wallet: Address): Hex {
  const [version, body] = encrypted.split(":");
  if (version !== VERSION || !body) throw new WalletKeyError("unknown wallet key format");
  const bytes = Buffer.from(body, "base64");
  if (bytes.length !== IV_BYTES + TAG_BYTES + 32) throw new WalletKeyError("malformed wallet key");
  const decipher = createDecipheriv("aes-256-gcm", encryptionKey(secret), bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(aad(agentId, wallet));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new WalletKeyError("wallet key does not decrypt: wrong AGENT_KEY_SECRET or tampered row");
  }
  return bytesToHex(plain);
}

/** A fresh wallet for `agentId`: its address and encrypted key (the plain key never leaves this function). */
export function newAgentWallet(secret: string, agentId: string): { address: Address; encryptedKey: string } {
  for (;;) {
    const key = bytesToHex(randomBytes(32));
    let account: LocalAccount;
    try {
      account = privateKeyToAccount(key);
    } catch {
      continue; // not a valid secp256k1 scalar (probability ~2^-128)
    }
    return { address: account.address, encryptedKey: encryptWalletKey(secret, key, agentId, account.address) };
  }
}

/** The agent wallet's signing account, checked against its recorded address. */
export function agentAccount(secret: string, encrypted: string, agentId: string, wallet: Address): LocalAccount {
  const account = privateKeyToAccount(decryptWalletKey(secret, encrypted, agentId, wallet));
  if (account.address !== getAddress(wallet)) throw new WalletKeyError("wallet key does not match the agent's wallet");
  return account;
}
