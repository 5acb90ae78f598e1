/** Registers every indexing function. One file per source contract. */
import "./launcher.js";
import "./burns.js";
import "./locker.js";
import "./fee-locker.js";
import "./auction.js";
import "./registry.js";
import "./pools.js";
import "./perps.js";
import "./gains.js";
