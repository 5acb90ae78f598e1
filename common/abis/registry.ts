/** The protocol registry: this project's own contract (devnet and production). */
import { parseAbi } from "viem";

export const registryAbi = parseAbi([
  "function enroll(address token, address creator, uint16 assetBps, uint16 perpBps, uint16 creatorBps, bytes32 charterHash)",
  "function setActive(address token, bool active)",
  "function setHalted(address token, bool halted)",
  "function enrollment(address token) view returns (address creator, uint16 protocolBps, uint16 assetBps, uint16 perpBps, uint16 creatorBps, bytes32 charterHash, bool active, bool halted, uint256 enrolledAt)",
  "function isEnrolled(address token) view returns (bool)",
  "function enrolledCount() view returns (uint256)",
  "function enrolledAt(uint256 i) view returns (address)",
  "event TokenEnrolled(address indexed token, address indexed creator, uint16 protocolBps, uint16 assetBps, uint16 perpBps, uint16 creatorBps, bytes32 charterHash)",
  "event TokenActiveSet(address indexed token, bool active)",
  "event TokenHaltedSet(address indexed token, bool halted)",
]);
