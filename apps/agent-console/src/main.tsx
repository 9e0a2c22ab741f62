// Entry point of the support application (the agents' console).
import { render } from "preact";
import { App } from "./app.tsx";
import { language } from "./i18n.ts";
import "@support/collector-form/collector-form.css";
import "@support/article-markdown/article-markdown.css";
import "./styles.css";

document.documentElement.lang = language;
render(<App />, document.getElementById("app")!);
