/** Registers every indexing function. One file per source contract. */
import "./burns.js";
