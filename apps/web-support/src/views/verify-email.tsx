// Why the home page lists only some conversations, and how to see the rest: a session the game
// did not sign sees only the conversations it started. With an email address, the player can
// prove it owns the address with a code mailed to it; without one, only the game can vouch.
import { useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { useApp } from "../app-context.tsx";
import type { MessageKey } from "../messages/en.ts";

/**
 * A sentence of the catalog with an email address in it: the address in a <bdi>, isolated from
 * the sentence's direction (a right-to-left sentence keeps `ar-360@example.com` in its own
 * order) and kept on one line when it fits (`.address`: no break at its hyphen).
 */
function WithAddress({ text, address }: { text: (email: string) => string; address: string }) {
  const marker = "\u0000";
  const [before, after] = text(marker).split(marker);
  return (
    <>
      {before}
      <bdi class="address">{address}</bdi>
      {after}
    </>
  );
}

type Step = { name: "offer" } | { name: "sending" } | { name: "sent"; sentTo: string; checking: boolean } | { name: "done" };

/** The message for a refused call of the verification, or undefined for one the page cannot explain. */
export function verificationProblem(error: unknown): MessageKey | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.detailsType === "EMAIL_NOT_CONFIGURED") return "verify.unavailable";
  if (error.detailsType === "ALREADY_VERIFIED") return "verify.done";
  if (error.status === 429) return "verify.tooMany";
  if (error.status === 400) return "verify.wrongCode";
  return undefined;
}

export function VerifyEmail({ onVerified }: { onVerified: () => void }) {
  const { api, session, locale, fail, refreshSession } = useApp();
  const { t } = locale;
  const [step, setStep] = useState<Step>({ name: "offer" });
  const [code, setCode] = useState("");
  const [problem, setProblem] = useState<MessageKey | null>(null);
  const codeInput = useRef<HTMLInputElement>(null);

  if (session.verification !== "unverified") return null;
  if (!session.player.email) {
    return (
      <section class="verify" aria-labelledby="verify-title">
        <h3 id="verify-title">{t("verify.title")}</h3>
        <p>{t("verify.onlyHere")}</p>
        <p>{t("verify.signInInGame")}</p>
      </section>
    );
  }

  const refused = (error: unknown) => {
    const key = verificationProblem(error);
    if (key) setProblem(key);
    else fail(error);
  };

  const send = async () => {
    setProblem(null);
    setStep({ name: "sending" });
    try {
      const sent = await api.sendEmailCode();
      setStep({ name: "sent", sentTo: sent.sentTo, checking: false });
      setCode("");
      // The code field is what the player needs next.
      setTimeout(() => codeInput.current?.focus(), 0);
    } catch (error) {
      setStep({ name: "offer" });
      refused(error);
    }
  };

  const confirm = async (event: Event) => {
    event.preventDefault();
    if (step.name !== "sent") return;
    if (code.trim() === "") {
      setProblem("verify.codeRequired");
      codeInput.current?.focus();
      return;
    }
    setProblem(null);
    setStep({ ...step, checking: true });
    try {
      await api.confirmEmailCode(code.trim());
      setStep({ name: "done" });
      onVerified();
      await refreshSession();
    } catch (error) {
      setStep({ ...step, checking: false });
      refused(error);
      codeInput.current?.focus();
    }
  };

  return (
    <section class="verify" aria-labelledby="verify-title">
      <h3 id="verify-title">{t("verify.title")}</h3>
      <p>{t("verify.onlyHere")}</p>
      {step.name === "done" ? (
        <p role="status">{t("verify.done")}</p>
      ) : step.name === "sent" ? (
        <form onSubmit={(event) => void confirm(event)} noValidate>
          <p role="status"><WithAddress text={(email) => t("verify.sent", { email })} address={step.sentTo} /></p>
          <label for="verify-code">{t("verify.code")}</label>
          <input
            id="verify-code"
            ref={codeInput}
            type="text"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={20}
            value={code}
            aria-invalid={problem !== null}
            aria-describedby={problem ? "verify-problem" : undefined}
            onInput={(event) => setCode((event.target as HTMLInputElement).value)}
          />
          <p class="actions">
            <button type="submit" class="button primary" disabled={step.checking}>
              {step.checking ? t("verify.checking") : t("verify.confirm")}
            </button>{" "}
            <button type="button" class="button" onClick={() => void send()}>
              {t("verify.resend")}
            </button>
          </p>
        </form>
      ) : (
        <p>
          <WithAddress text={(email) => t("verify.offer", { email })} address={session.player.email} />{" "}
          <button type="button" class="button" disabled={step.name === "sending"} onClick={() => void send()}>
            {step.name === "sending" ? t("verify.sending") : t("verify.send")}
          </button>
        </p>
      )}
      {problem && (
        <p id="verify-problem" class="error" role="alert">
          {t(problem)}
        </p>
      )}
    </section>
  );
}
