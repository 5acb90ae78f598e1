export * from "../../schema/ponder.js";
