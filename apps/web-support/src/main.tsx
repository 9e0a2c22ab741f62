// Entry point of the web support page: takes the session code out of the address (and the data
// the page was served with for it), then renders.
import { render } from "preact";
import { App } from "./app.tsx";
import { takePageData } from "./page-data.ts";
import { takeSessionCode } from "./session-code.ts";
import "@support/collector-form/collector-form.css";
import "@support/article-markdown/article-markdown.css";
import "./styles.css";

const taken = takeSessionCode();
// The page's data is for the code in the address it was served at, never for a stored one.
const served = taken.fresh ? takePageData() : null;
render(<App taken={taken} served={served} />, document.getElementById("app")!);
