/** The service's own ponder config and schema, served by ponder's built-in GraphQL (bench baseline). */
export { default } from "../../ponder.config.js";
