// Entry point of the web support page: takes the session code out of the address, then renders.
import { render } from "preact";
import { App } from "./app.tsx";
import { takeSessionCode } from "./session-code.ts";
import "@support/collector-form/collector-form.css";
import "@support/article-markdown/article-markdown.css";
import "./styles.css";

const taken = takeSessionCode();
render(<App taken={taken} />, document.getElementById("app")!);
