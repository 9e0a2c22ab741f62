import { AppLayout, Link, PageTitle } from "../components/layout.tsx";
import { t } from "../i18n.ts";

export function NotFound() {
  return (
    <AppLayout>
      <PageTitle>{t("notFound.title")}</PageTitle>
      <p>{t("notFound.text")}</p>
      <p>
        <Link to="/">{t("notFound.home")}</Link>
      </p>
    </AppLayout>
  );
}
