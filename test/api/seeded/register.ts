/**
 * `POST /tokens/register` against the LP locker on the shared devnet, and what every view shows
 * of the locker afterwards: a split the locker cannot honour is refused (422, naming what
 * differs) and nothing is enrolled; a split it honours is enrolled and shown as honoured, to the
 * bps, with every reward slot; a later fee-preference or admin change is indexed and shown on
 * `/tokens`, in GraphQL and on the page.
 */
import { type Abi, type Address, getAddress } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { FeeIn, clankerLpLockerAbi } from "../../../common/abis/clanker.js";
import { registryAbi } from "../../../common/abis/registry.js";
import type { RewardRecipient } from "../../../common/deploy-config.js";
import * as schemas from "../../../api/rest/schemas.js";
import * as act from "../../helpers/actions.js";
import { type Answer, type Harness, OPERATOR_API_KEY, actors } from "../harness.js";
import { seededWorld } from "./world.js";

let h: Harness;
const { operator, trader, other } = actors();
const O = getAddress(operator.account.address);
const T = getAddress(trader.account.address);
const X = getAddress(other.account.address);

/** Registers the suite; its hooks and tests run inside the describe that calls it (test/api/seeded.test.ts). */
export function registerSuite(): void {
  beforeAll(async () => {
    ({ h } = seededWorld());
  }, 300_000);

  const post = (path: string, json: unknown) => h.call("POST", `/api/v1${path}`, { json, key: OPERATOR_API_KEY });

  function expectRefused(a: Answer, message: string) {
    expect(a.status, a.text).toBe(422);
    expect(Object.keys(a.json)).toEqual(["error", "code"]);
    expect(a.json.code).toBe("UNPROCESSABLE");
    expect(a.json.error).toContain(message);
  }

  const slot = (recipient: Address, bps: number, feeIn: number = FeeIn.Paired, admin: Address = T): RewardRecipient => ({
    recipient,
    admin,
    bps,
    feeIn: feeIn as RewardRecipient["feeIn"],
  });
  let launched = 0;
  const launch = async (rewards: RewardRecipient[]) =>
    (await act.launchToken(trader, h.contracts, { name: `Reg ${launched}`, symbol: `REG${launched++}`, operator: O, creator: T, rewards })).token;
  const isEnrolled = (token: Address) => operator.read<boolean>(h.contracts.registry!, registryAbi as Abi, "isEnrolled", [token]);

  describe("POST /tokens/register refuses a split the locker cannot honour", () => {
    it("when the operator is not a reward recipient", async () => {
      const token = await launch([slot(T, 10_000)]);
      const a = await post("/tokens/register", { token, creator: T, assetPct: 30, perpPct: 50, creatorPct: 15 });
      expectRefused(a, `does not pay LP rewards to the operator wallet ${O}`);
      expect(await isEnrolled(token)).toBe(false);
    });

    it("when the locker pays the creator another share directly", async () => {
      // As a token launched through clanker-sdk: the operator 90%, the creator 10% directly.
      const token = await launch([slot(O, 9_000), slot(T, 1_000)]);
      const a = await post("/tokens/register", { token, creator: T, assetPct: 30, perpPct: 50, creatorPct: 15 });
      expectRefused(a, "the locker pays the creator 10% directly; the requested creator leg is 15%");
      expectRefused(a, "the locker pays the operator 90%; the requested protocol, asset and perp legs total 85%");
      // No creator leg requested while the locker pays one.
      expectRefused(
        await post("/tokens/register", { token, creator: T, assetPct: 40, perpPct: 55, creatorPct: 0 }),
        "the locker pays the creator 10% directly; the requested creator leg is 0%",
      );
      // The creator defaults to the operator, whom the locker pays no direct share.
      expectRefused(
        await post("/tokens/register", { token, assetPct: 30, perpPct: 55, creatorPct: 10 }),
        "the locker pays the creator 0% directly; the requested creator leg is 10% (the creator is the operator wallet",
      );
      expect(await isEnrolled(token)).toBe(false);
    });

    it("when an operator slot is not paid in the paired currency", async () => {
      const token = await launch([slot(O, 9_000, FeeIn.Clanker), slot(T, 1_000)]);
      const a = await post("/tokens/register", { token, creator: T, assetPct: 30, perpPct: 55, creatorPct: 10 });
      expectRefused(a, "the locker pays the operator's reward slot 0 in Clanker (FeeIn 2); the engine needs FeeIn.Paired");
      const both = await launch([slot(T, 500), slot(O, 9_500, FeeIn.Both)]);
      expectRefused(
        await post("/tokens/register", { token: both, creator: T, assetPct: 30, perpPct: 60, creatorPct: 5 }),
        "the locker pays the operator's reward slot 1 in Both (FeeIn 0)",
      );
      expect(await isEnrolled(token)).toBe(false);
      expect(await isEnrolled(both)).toBe(false);
    });

    it("when the locker pays someone else directly", async () => {
      const token = await launch([slot(O, 8_550), slot(T, 950), slot(X, 500)]);
      const a = await post("/tokens/register", { token, creator: T, assetPct: 28.5, perpPct: 57, creatorPct: 9.5 });
      expectRefused(a, `the locker pays ${X} 5% directly (reward slot 2), which the requested split has no leg for`);
      expect(await isEnrolled(token)).toBe(false);
    });
  });

  describe("a token whose locker pays the creator directly", () => {
    let token: Address;
    const tokenQuery = `query($a: String!) { token(address: $a) {
    enrollment { split { protocolBps assetBps perpBps creatorBps } }
    honouredSplit { protocolBps assetBps perpBps creatorBps otherBps operatorBps operatorFeesRouted reason }
    lockerShares { rewardIndex recipient admin bps feeIn role updatedBlock }
  } }`;

    const tokensItem = async () => {
      await h.synced();
      const a = await h.call("GET", "/api/v1/tokens?limit=200");
      expect(a.status, a.text).toBe(200);
      schemas.tokensResponse.parse(a.json);
      return a.json.items.find((t: { address: string }) => t.address === token);
    };
    const gqlToken = async () => {
      const a = await h.gql(tokenQuery, { a: token });
      expect(a.json.errors, a.text).toBeUndefined();
      return a.json.data.token;
    };
    const page = async () => {
      const a = await h.call("GET", `/p/${token}`);
      expect(a.status).toBe(200);
      return a.text;
    };

    it("is enrolled with the split the locker honours, and every view shows it to the bps with the locker's slots", async () => {
      // Launched with the creator's 10% paid directly by the locker; the operator's 90% is split by the engine.
      token = await launch([slot(O, 9_000), slot(T, 1_000)]);
      const a = await post("/tokens/register", { token, creator: T, assetPct: 30, perpPct: 55, creatorPct: 10 });
      expect(a.status, a.text).toBe(201);
      expect(a.json.split).toEqual({ protocolBps: 500, assetBps: 3000, perpBps: 5500, creatorBps: 1000 });
      expect(await isEnrolled(token)).toBe(true);

      const honoured = {
        protocolBps: 500,
        assetBps: 3000,
        perpBps: 5500,
        creatorBps: 1000,
        otherBps: 0,
        operatorBps: 9000,
        operatorFeesRouted: true,
        reason: null,
      };
      const shares = [
        { rewardIndex: 0, recipient: O, admin: T, bps: 9000, feeIn: "Paired", role: "operator", updatedBlock: null },
        { rewardIndex: 1, recipient: T, admin: T, bps: 1000, feeIn: "Paired", role: "creator", updatedBlock: null },
      ];
      const item = await tokensItem();
      expect(item.split).toEqual({ protocolBps: 500, assetBps: 3000, perpBps: 5500, creatorBps: 1000 });
      expect(item.honouredSplit).toEqual(honoured);
      expect(item.lockerShares).toEqual(shares);

      const g = await gqlToken();
      expect(g.honouredSplit).toEqual(honoured);
      expect(g.lockerShares).toEqual(shares);

      const html = await page();
      expect(html).toContain("protocol 5% · asset 30% · perp desk 55% · creator 10% (paid by the locker directly)");
      expect(html).toContain("routed by the engine (90% of all LP fees)");
      expect(html).toMatch(
        new RegExp(`<td><code data-field="slot-recipient">${O}</code></td><td data-field="slot-share">90%</td><td data-field="slot-fee-in">Paired</td>`),
      );
    });

    it("shows a recipient switching its preference to Clanker and back, and an admin change, as indexed", async () => {
      const lockerAbi = clankerLpLockerAbi as Abi;
      const toClanker = await act.receipt(trader, await trader.write(h.contracts.lpLocker!, lockerAbi, "updateFeePreference", [token, 0n, FeeIn.Clanker]));
      let item = await tokensItem();
      expect(item.lockerShares[0]).toMatchObject({ rewardIndex: 0, recipient: O, feeIn: "Clanker", updatedBlock: Number(toClanker.blockNumber) });
      expect(item.honouredSplit).toMatchObject({ operatorFeesRouted: false, reason: expect.stringContaining("reward slot 0 is paid in Clanker, not Paired") });
      expect((await gqlToken()).lockerShares[0]).toMatchObject({ feeIn: "Clanker", updatedBlock: String(toClanker.blockNumber) });
      let html = await page();
      expect(html).toContain('<td data-field="slot-fee-in">Clanker</td>');
      expect(html).toContain("not routed: the operator&#39;s reward slot 0 is paid in Clanker");

      const back = await act.receipt(trader, await trader.write(h.contracts.lpLocker!, lockerAbi, "updateFeePreference", [token, 0n, FeeIn.Paired]));
      item = await tokensItem();
      expect(item.lockerShares[0]).toMatchObject({ feeIn: "Paired", updatedBlock: Number(back.blockNumber) });
      expect(item.honouredSplit).toMatchObject({ operatorFeesRouted: true, reason: null });

      const admin = await act.receipt(trader, await trader.write(h.contracts.lpLocker!, lockerAbi, "updateRewardAdmin", [token, 1n, X]));
      item = await tokensItem();
      expect(item.lockerShares[1]).toEqual({
        rewardIndex: 1,
        recipient: T,
        admin: X,
        bps: 1000,
        feeIn: "Paired",
        role: "creator",
        updatedBlock: Number(admin.blockNumber),
      });
      expect((await gqlToken()).lockerShares[1]).toMatchObject({ admin: X, updatedBlock: String(admin.blockNumber) });
      html = await page();
      expect(html).toContain(`<code data-field="slot-admin">${X}</code>`);
      // The indexed slots are the locker's.
      const onchain = await trader.read<{ rewardAdmins: readonly Address[] }>(h.contracts.lpLocker!, lockerAbi, "tokenRewards", [token]);
      expect(onchain.rewardAdmins.map((a) => getAddress(a))).toEqual([T, X]);
      const preferences = await Promise.all([0n, 1n].map((i) => trader.read<number>(h.contracts.lpLocker!, lockerAbi, "feePreferences", [token, i])));
      expect(preferences).toEqual([FeeIn.Paired, FeeIn.Paired]);
    });
  });
}
