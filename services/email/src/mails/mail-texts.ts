// The texts of the mails players receive, one catalog per language. A ticket's language picks
// its catalog: the exact code, else its base language (pt-BR -> pt), else English. A new
// language is one more entry here; the unit test checks every catalog has every text.
export interface MailTexts {
  /** The sender's display name. */
  fromName: (game: string) => string;
  /** Subject of a reply: the ticket's subject line and number. */
  replySubject: (subject: string, number: number) => string;
  /** Under the agent's message. */
  signature: (game: string) => string;
  /** How to answer. */
  replyHint: (number: number) => string;
  /** The link to continue on the web support page. */
  continueOnWeb: string;
  /** Above the quoted conversation. */
  earlier: string;
  /** Who wrote a quoted message, and when. */
  youWrote: (at: string) => string;
  supportWrote: (at: string) => string;
  /** The satisfaction survey mailed when a ticket is resolved. */
  csatSubject: (subject: string, number: number) => string;
  csatIntro: (game: string) => string;
  csatQuestion: string;
  /** The five scores, from 1 to 5. */
  scores: readonly [string, string, string, string, string];
  csatOnce: string;
  /** The rating page the survey's links open. */
  pageTitle: (game: string) => string;
  pageQuestion: (number: number) => string;
  pageComment: string;
  pageSubmit: string;
  pageChooseScore: string;
  pageThanks: (score: number) => string;
  pageAlreadyRated: (score: number) => string;
  pageInvalid: string;
}

const en: MailTexts = {
  continueOnWeb: "You can also continue this conversation on our support page:",
  fromName: (game) => `${game} Support`,
  replySubject: (subject, number) => `Re: ${subject} [#${number}]`,
  signature: (game) => `The ${game} support team`,
  replyHint: (number) => `Ticket #${number}. Reply to this email to answer; please keep the ticket number in the subject.`,
  earlier: "Earlier in this conversation",
  youWrote: (at) => `You wrote on ${at}:`,
  supportWrote: (at) => `Support wrote on ${at}:`,
  csatSubject: (subject, number) => `How did we do? ${subject} [#${number}]`,
  csatIntro: (game) => `Your conversation with the ${game} support team is resolved.`,
  csatQuestion: "How would you rate the help you received? Choose a score:",
  scores: ["1 – Very poor", "2 – Poor", "3 – OK", "4 – Good", "5 – Very good"],
  csatOnce: "You can rate it once, within 30 days.",
  pageTitle: (game) => `Rate your ${game} support conversation`,
  pageQuestion: (number) => `How would you rate the help you received for ticket #${number}?`,
  pageComment: "Anything you want to tell us? (optional)",
  pageSubmit: "Send my rating",
  pageChooseScore: "Choose a score from 1 to 5.",
  pageThanks: (score) => `Thank you! You rated this conversation ${score} of 5.`,
  pageAlreadyRated: (score) => `This conversation was already rated ${score} of 5. Thank you!`,
  pageInvalid: "This rating link is not valid (any more).",
};

const de: MailTexts = {
  continueOnWeb: "Du kannst dieses Gespräch auch auf unserer Support-Seite fortsetzen:",
  fromName: (game) => `${game} Support`,
  replySubject: (subject, number) => `AW: ${subject} [#${number}]`,
  signature: (game) => `Dein ${game}-Supportteam`,
  replyHint: (number) => `Ticket #${number}. Antworte einfach auf diese E-Mail; bitte lass die Ticketnummer im Betreff stehen.`,
  earlier: "Bisher in diesem Gespräch",
  youWrote: (at) => `Du hast am ${at} geschrieben:`,
  supportWrote: (at) => `Der Support hat am ${at} geschrieben:`,
  csatSubject: (subject, number) => `Wie war unser Support? ${subject} [#${number}]`,
  csatIntro: (game) => `Dein Gespräch mit dem ${game}-Supportteam ist gelöst.`,
  csatQuestion: "Wie bewertest du die Hilfe, die du bekommen hast? Wähle eine Note:",
  scores: ["1 – Sehr schlecht", "2 – Schlecht", "3 – In Ordnung", "4 – Gut", "5 – Sehr gut"],
  csatOnce: "Du kannst einmal bewerten, innerhalb von 30 Tagen.",
  pageTitle: (game) => `Bewerte dein ${game}-Supportgespräch`,
  pageQuestion: (number) => `Wie bewertest du die Hilfe zu Ticket #${number}?`,
  pageComment: "Möchtest du uns noch etwas sagen? (optional)",
  pageSubmit: "Bewertung senden",
  pageChooseScore: "Wähle eine Note von 1 bis 5.",
  pageThanks: (score) => `Danke! Du hast dieses Gespräch mit ${score} von 5 bewertet.`,
  pageAlreadyRated: (score) => `Dieses Gespräch wurde schon mit ${score} von 5 bewertet. Danke!`,
  pageInvalid: "Dieser Bewertungslink ist (nicht mehr) gültig.",
};

const fr: MailTexts = {
  continueOnWeb: "Vous pouvez aussi poursuivre cet échange sur notre page d'assistance :",
  fromName: (game) => `Support ${game}`,
  replySubject: (subject, number) => `RE: ${subject} [#${number}]`,
  signature: (game) => `L'équipe support de ${game}`,
  replyHint: (number) => `Ticket n° ${number}. Répondez à cet e-mail pour nous écrire ; merci de garder le numéro du ticket dans l'objet.`,
  earlier: "Plus tôt dans cette conversation",
  youWrote: (at) => `Vous avez écrit le ${at} :`,
  supportWrote: (at) => `Le support a écrit le ${at} :`,
  csatSubject: (subject, number) => `Votre avis sur notre support : ${subject} [#${number}]`,
  csatIntro: (game) => `Votre échange avec le support de ${game} est résolu.`,
  csatQuestion: "Comment évaluez-vous l'aide reçue ? Choisissez une note :",
  scores: ["1 – Très mauvais", "2 – Mauvais", "3 – Correct", "4 – Bon", "5 – Très bon"],
  csatOnce: "Vous pouvez donner votre avis une fois, dans les 30 jours.",
  pageTitle: (game) => `Évaluez votre échange avec le support de ${game}`,
  pageQuestion: (number) => `Comment évaluez-vous l'aide reçue pour le ticket n° ${number} ?`,
  pageComment: "Souhaitez-vous ajouter quelque chose ? (facultatif)",
  pageSubmit: "Envoyer ma note",
  pageChooseScore: "Choisissez une note de 1 à 5.",
  pageThanks: (score) => `Merci ! Vous avez donné la note de ${score} sur 5.`,
  pageAlreadyRated: (score) => `Cet échange a déjà été noté ${score} sur 5. Merci !`,
  pageInvalid: "Ce lien d'évaluation n'est pas (ou plus) valide.",
};

const es: MailTexts = {
  continueOnWeb: "También puedes continuar esta conversación en nuestra página de soporte:",
  fromName: (game) => `Soporte de ${game}`,
  replySubject: (subject, number) => `RE: ${subject} [#${number}]`,
  signature: (game) => `El equipo de soporte de ${game}`,
  replyHint: (number) => `Ticket n.º ${number}. Responde a este correo para contestar; conserva el número del ticket en el asunto.`,
  earlier: "Antes en esta conversación",
  youWrote: (at) => `Escribiste el ${at}:`,
  supportWrote: (at) => `Soporte escribió el ${at}:`,
  csatSubject: (subject, number) => `¿Qué tal te atendimos? ${subject} [#${number}]`,
  csatIntro: (game) => `Tu conversación con el soporte de ${game} está resuelta.`,
  csatQuestion: "¿Cómo valoras la ayuda que recibiste? Elige una puntuación:",
  scores: ["1 – Muy mala", "2 – Mala", "3 – Normal", "4 – Buena", "5 – Muy buena"],
  csatOnce: "Puedes valorarla una vez, en un plazo de 30 días.",
  pageTitle: (game) => `Valora tu conversación con el soporte de ${game}`,
  pageQuestion: (number) => `¿Cómo valoras la ayuda que recibiste en el ticket n.º ${number}?`,
  pageComment: "¿Quieres contarnos algo más? (opcional)",
  pageSubmit: "Enviar mi valoración",
  pageChooseScore: "Elige una puntuación del 1 al 5.",
  pageThanks: (score) => `¡Gracias! Valoraste esta conversación con ${score} de 5.`,
  pageAlreadyRated: (score) => `Esta conversación ya fue valorada con ${score} de 5. ¡Gracias!`,
  pageInvalid: "Este enlace de valoración no es válido (o ya no lo es).",
};

const pt: MailTexts = {
  continueOnWeb: "Você também pode continuar esta conversa na nossa página de suporte:",
  fromName: (game) => `Suporte ${game}`,
  replySubject: (subject, number) => `RE: ${subject} [#${number}]`,
  signature: (game) => `Equipe de suporte de ${game}`,
  replyHint: (number) => `Ticket nº ${number}. Responda a este e-mail para continuar; mantenha o número do ticket no assunto.`,
  earlier: "Antes nesta conversa",
  youWrote: (at) => `Você escreveu em ${at}:`,
  supportWrote: (at) => `O suporte escreveu em ${at}:`,
  csatSubject: (subject, number) => `Como foi o nosso suporte? ${subject} [#${number}]`,
  csatIntro: (game) => `Sua conversa com o suporte de ${game} foi resolvida.`,
  csatQuestion: "Como você avalia a ajuda recebida? Escolha uma nota:",
  scores: ["1 – Muito ruim", "2 – Ruim", "3 – Regular", "4 – Boa", "5 – Muito boa"],
  csatOnce: "Você pode avaliar uma vez, em até 30 dias.",
  pageTitle: (game) => `Avalie sua conversa com o suporte de ${game}`,
  pageQuestion: (number) => `Como você avalia a ajuda recebida no ticket nº ${number}?`,
  pageComment: "Quer nos dizer mais alguma coisa? (opcional)",
  pageSubmit: "Enviar minha avaliação",
  pageChooseScore: "Escolha uma nota de 1 a 5.",
  pageThanks: (score) => `Obrigado! Você avaliou esta conversa com ${score} de 5.`,
  pageAlreadyRated: (score) => `Esta conversa já foi avaliada com ${score} de 5. Obrigado!`,
  pageInvalid: "Este link de avaliação não é (mais) válido.",
};

const ja: MailTexts = {
  continueOnWeb: "サポートページでもこのお問い合わせを続けられます:",
  fromName: (game) => `${game} サポート`,
  replySubject: (subject, number) => `Re: ${subject} [#${number}]`,
  signature: (game) => `${game} サポートチーム`,
  replyHint: (number) => `チケット #${number}。このメールに返信してください（件名のチケット番号は消さないでください）。`,
  earlier: "これまでのやり取り",
  youWrote: (at) => `${at} にお客様が書いたメッセージ:`,
  supportWrote: (at) => `${at} にサポートが書いたメッセージ:`,
  csatSubject: (subject, number) => `サポートの評価をお願いします: ${subject} [#${number}]`,
  csatIntro: (game) => `${game} サポートとのお問い合わせは解決済みになりました。`,
  csatQuestion: "受けたサポートを評価してください。点数を選んでください:",
  scores: ["1 – とても悪い", "2 – 悪い", "3 – 普通", "4 – 良い", "5 – とても良い"],
  csatOnce: "評価は 30 日以内に 1 回だけできます。",
  pageTitle: (game) => `${game} サポートの評価`,
  pageQuestion: (number) => `チケット #${number} のサポートをどう評価しますか?`,
  pageComment: "ご意見があればお書きください(任意)",
  pageSubmit: "評価を送信",
  pageChooseScore: "1 から 5 の点数を選んでください。",
  pageThanks: (score) => `ありがとうございました。5 点中 ${score} 点と評価いただきました。`,
  pageAlreadyRated: (score) => `このお問い合わせはすでに 5 点中 ${score} 点と評価済みです。ありがとうございました。`,
  pageInvalid: "この評価リンクは無効です。",
};

export const catalogs: Readonly<Record<string, MailTexts>> = { en, de, fr, es, pt, ja };

/** The catalog of a ticket's language and the language it is in. */
export function textsFor(language: string): { language: string; texts: MailTexts } {
  const base = language.split("-")[0]!;
  for (const candidate of [language, base]) {
    const texts = catalogs[candidate];
    if (texts) return { language: candidate, texts };
  }
  return { language: "en", texts: en };
}
