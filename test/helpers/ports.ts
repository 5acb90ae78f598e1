export { freePort } from "../../devnet/ports.js";
