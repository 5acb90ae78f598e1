export { default } from "../../api/app.js";
