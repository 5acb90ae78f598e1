import "../indexer/index.js";
