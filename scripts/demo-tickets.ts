// The demo company's inbox: tickets created through the public API, the way a studio's backend
// creates them, then worked on by the demo agents through the ticket actions, so a newcomer who
// signs in to the support application finds tickets in every state, both games, four languages
// and every tier. The same seed gives the same tickets. Used by `make up` once, right after it
// applied the demo tenant.

/** What the seeding needs of the demo tenant. */
export interface DemoInbox {
  /** The gateway, e.g. http://127.0.0.1:8080. */
  gateway: string;
  apiKey: string;
  games: { ref: string; id: string; languages: string[] }[];
  /** The agents who answer, with the refs of their games. */
  agents: { id: string; games: string[] }[];
}

export interface SeedResult {
  tickets: number;
  actions: number;
  ms: number;
}

type Language = "en" | "fr" | "de" | "es";

interface Topic {
  tags: string[];
  game?: string;
  messages: Record<Language, string>;
}

const TOPICS: Topic[] = [
  {
    tags: ["crash"],
    game: "galaxy",
    messages: {
      en: "The game crashes every time I jump to the Orion sector. I lose the cargo I was carrying.",
      fr: "Le jeu plante à chaque saut vers le secteur d'Orion et je perds ma cargaison.",
      de: "Das Spiel stürzt bei jedem Sprung in den Orion-Sektor ab, und meine Fracht ist weg.",
      es: "El juego se cierra cada vez que salto al sector de Orión y pierdo la carga.",
    },
  },
  {
    tags: ["billing"],
    messages: {
      en: "I bought the 1,200 gems pack but the gems never arrived. I was charged twice.",
      fr: "J'ai acheté le pack de 1 200 gemmes mais je ne les ai jamais reçues. J'ai été débité deux fois.",
      de: "Ich habe das Paket mit 1.200 Edelsteinen gekauft, aber nichts bekommen. Abgebucht wurde zweimal.",
      es: "Compré el paquete de 1.200 gemas pero nunca llegaron. Me cobraron dos veces.",
    },
  },
  {
    tags: ["bug"],
    messages: {
      en: "My daily reward counter reset to day 1 although I logged in every day this week.",
      fr: "Mon compteur de récompenses quotidiennes est revenu au jour 1 alors que je me suis connecté chaque jour.",
      de: "Mein Zähler für tägliche Belohnungen steht wieder auf Tag 1, obwohl ich mich jeden Tag angemeldet habe.",
      es: "Mi contador de recompensas diarias volvió al día 1 aunque entré todos los días esta semana.",
    },
  },
  {
    tags: ["lost-crops"],
    game: "farm",
    messages: {
      en: "All my pumpkins disappeared overnight. They were ready to harvest this morning.",
      fr: "Toutes mes citrouilles ont disparu pendant la nuit alors qu'elles étaient prêtes à être récoltées.",
      de: "Alle meine Kürbisse sind über Nacht verschwunden, dabei waren sie heute Morgen erntereif.",
      es: "Todas mis calabazas desaparecieron por la noche. Estaban listas para cosechar esta mañana.",
    },
  },
  {
    tags: [],
    messages: {
      en: "How do I move my progress from my old phone to my new one?",
      fr: "Comment transférer ma progression de mon ancien téléphone vers le nouveau ?",
      de: "Wie übertrage ich meinen Spielstand vom alten auf das neue Handy?",
      es: "¿Cómo paso mi progreso del móvil viejo al nuevo?",
    },
  },
  {
    tags: ["bug"],
    messages: {
      en: "The chat window stays empty since the last update, I cannot talk to my guild.",
      fr: "La fenêtre de discussion reste vide depuis la dernière mise à jour, je ne peux plus parler à ma guilde.",
      de: "Seit dem letzten Update bleibt das Chatfenster leer, ich kann nicht mit meiner Gilde schreiben.",
      es: "Desde la última actualización la ventana de chat está vacía y no puedo hablar con mi gremio.",
    },
  },
  {
    tags: ["billing"],
    messages: {
      en: "Please refund my season pass, I bought it by mistake a few minutes ago.",
      fr: "Merci de rembourser mon passe de saison, je l'ai acheté par erreur il y a quelques minutes.",
      de: "Bitte erstattet meinen Saisonpass, ich habe ihn vor ein paar Minuten aus Versehen gekauft.",
      es: "Por favor, devolvedme el pase de temporada, lo compré por error hace unos minutos.",
    },
  },
  {
    tags: [],
    messages: {
      en: "I love the new event! Will the winter skins come back next year?",
      fr: "J'adore le nouvel événement ! Les skins d'hiver reviendront-ils l'année prochaine ?",
      de: "Das neue Event ist super! Kommen die Winter-Skins nächstes Jahr wieder?",
      es: "¡Me encanta el nuevo evento! ¿Volverán las apariencias de invierno el año que viene?",
    },
  },
];

const REPLIES: Record<Language, string[]> = {
  en: ["Thanks for writing! Could you tell us your player level and the time it happened?", "We found the issue and restored your items. Please restart the game."],
  fr: ["Merci de nous avoir écrit ! Pouvez-vous nous indiquer votre niveau et l'heure du problème ?", "Nous avons trouvé le problème et restauré vos objets. Relancez le jeu, s'il vous plaît."],
  de: ["Danke für deine Nachricht! Welches Level hast du, und wann ist es passiert?", "Wir haben das Problem gefunden und deine Gegenstände wiederhergestellt. Bitte starte das Spiel neu."],
  es: ["¡Gracias por escribirnos! ¿Nos dices tu nivel y a qué hora ocurrió?", "Encontramos el problema y restauramos tus objetos. Reinicia el juego, por favor."],
};

const NOTES = ["Same report as the Orion crash cluster, linked to build 4.2.1.", "Checked the store receipt: two charges, one order.", "Escalated to the live-ops team."];
const FIRST_NAMES = ["Mia", "Noah", "Lena", "Jonas", "Chloé", "Lucas", "Sofía", "Mateo", "Emma", "Liam", "Hana", "Yuki", "Omar", "Zoé", "Paul", "Clara"];
const PLATFORMS = ["ios", "android", "win", "macos", "playstation_5", "switch", "xbox_series"] as const;

/** A small deterministic generator (mulberry32): the same seed gives the same inbox. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Action = Record<string, unknown> & { type: string };

/** What happens to a ticket after it was created: a list of action requests, in order. */
function workFor(next: () => number, language: Language, agent: string): Action[][] {
  const reply = REPLIES[language];
  const roll = next();
  const assign: Action = { type: "assignTicket", assigneeId: agent, userId: agent };
  if (roll < 0.3) return []; // new, nobody has looked yet
  if (roll < 0.45) return [[assign]];
  if (roll < 0.5) return [[assign, { type: "sendMessage", message: reply[0]!, userId: agent }]];
  // Answered with a question: the ticket waits for the player.
  if (roll < 0.65) return [[assign, { type: "sendMessage", message: reply[0]!, userId: agent }, { type: "setStatus", status: "waiting", userId: agent }]];
  if (roll < 0.72) return [[assign, { type: "addPrivateNote", message: NOTES[Math.floor(next() * NOTES.length)]!, userId: agent }], [{ type: "setOnHold", onHold: true, userId: agent }]];
  if (roll < 0.93) return [[assign, { type: "sendMessage", message: reply[1]!, userId: agent }, { type: "resolveTicket", userId: agent }]];
  return [[assign, { type: "rejectTicket", userId: agent }]];
}

async function post(url: string, apiKey: string, body: unknown): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.ok) return text === "" ? undefined : JSON.parse(text);
    // The company's rate limit or a service still warming up: wait as told, a few times.
    if ((response.status === 429 || response.status === 503) && attempt < 5) {
      const seconds = Number(response.headers.get("retry-after") ?? "1");
      await new Promise((resolve) => setTimeout(resolve, Math.min(30, Number.isFinite(seconds) ? seconds : 1) * 1000));
      continue;
    }
    throw new Error(`POST ${new URL(url).pathname} answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

/** Creates `count` tickets and the agents' work on them, `concurrency` at a time. */
export async function seedDemoTickets(inbox: DemoInbox, options: { count?: number; concurrency?: number; seed?: number } = {}): Promise<SeedResult> {
  const count = options.count ?? 300;
  const next = random(options.seed ?? 20261126);
  const started = Date.now();
  let actions = 0;
  const plans = Array.from({ length: count }, (_, index) => {
    const topic = TOPICS[Math.floor(next() * TOPICS.length)]!;
    const game = inbox.games.find((g) => g.ref === topic.game) ?? inbox.games[Math.floor(next() * inbox.games.length)]!;
    const languages = game.languages.filter((language): language is Language => language in REPLIES);
    const language = languages[Math.floor(next() * languages.length)] ?? "en";
    const name = FIRST_NAMES[Math.floor(next() * FIRST_NAMES.length)]!;
    const agents = inbox.agents.filter((agent) => agent.games.includes(game.ref));
    const agent = agents[Math.floor(next() * agents.length)]?.id;
    const tierRoll = next();
    const tier = tierRoll < 0.6 ? undefined : tierRoll < 0.8 ? 1 : tierRoll < 0.93 ? 2 : 3;
    return {
      create: {
        gameId: game.id,
        message: topic.messages[language],
        language,
        channels: ["email"],
        platform: PLATFORMS[Math.floor(next() * PLATFORMS.length)],
        // The demo's messages repeat by design: they are not duplicates to merge.
        skipDuplicateCheck: true,
        metadata: {
          player: { id: `demo-${index + 1}`, name: `${name} ${String.fromCharCode(65 + (index % 26))}.`, email: `player${index + 1}@demo-players.example`, ...(tier ? { tier } : {}) },
          tags: topic.tags,
        },
      },
      work: agent ? workFor(next, language, agent) : [],
    };
  });
  let cursor = 0;
  const worker = async () => {
    while (cursor < plans.length) {
      const plan = plans[cursor++]!;
      const { ticketId } = (await post(`${inbox.gateway}/tickets`, inbox.apiKey, plan.create)) as { ticketId: string };
      for (const request of plan.work) {
        await post(`${inbox.gateway}/tickets/${ticketId}/actions`, inbox.apiKey, { actions: request });
        actions += request.length;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  return { tickets: plans.length, actions, ms: Date.now() - started };
}
