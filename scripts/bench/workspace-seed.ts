// Bulk load of one company's support workspace straight into Postgres (not through the API):
// tickets with their conversations (ticket_events: player and agent messages, private notes,
// the END of closed tickets), the players those tickets name (players schema) and what the
// assignees have read (ticket_reads). Set-based, like tickets-seed.ts: `insert ... select from
// generate_series`, every attribute a deterministic function of the running id g and of the
// event's position k (hashint8), so a run at any size is the same data cut at another length.
//
// Every column the service derives is written as the service writes it: first_message and its
// normalised form from the first player message, search_config from the ticket's language
// (search_vector is the table's own generated column, so Postgres computes it as for an API
// write), each event's ticket_running_id from its ticket, last_activity_at, last_player_message_at, waiting_since and closed_at from the
// conversation's times, service_player_id naming a real player of the ticket's game. What the
// agent lists read beside the row (the subject from the first PLAYER_MESSAGE event, unread from
// ticket_reads) is then what the API would find. Internal audit events (STATUS_CHANGED and the
// like) are not written: no list, count, search or conversation reads them.
//
// Distributions, of a company of N tickets over the year before `now` (created_at increasing by
// a fixed step, running ids gapless from 1):
//  - games 50/25/15/10%; languages en 50%, de 20%, fr 15%, ja 10%, es 5%;
//  - tickets of the last 14 days: closed 40%, new 12%, waiting 15%, assigned 18%, unassigned 5%,
//    on hold 10%; older ones: 97% closed, the rest spread like that over the open statuses;
//  - assignee: one of the game's agents for assigned, waiting, on hold (90%) and closed (90%);
//  - M messages in all, per ticket between 1 and 2*M/N-1 (pairs of tickets sum to 2*M/N, so the
//    total is exact): the first a player message, then agent and player messages in turn with 15%
//    private notes; a new ticket holds player messages only; a closed one also its END;
//  - text: one of 8-10 sentences per language (frequent words: "account" in a third of the
//    English player messages), an item of 30 per language in half the player messages and a
//    fifth of the agent replies (mid-frequency: an item is in 1-3% of the tickets) and, in 8%
//    of player messages, a reference word of three syllables out of 13,824 (rare: tens of
//    messages each).
import type pg from "pg";
import { progress } from "./stack.ts";

export interface WorkspaceCompany {
  companyId: string;
  /** Game and first-environment ids, in the order of the weights 50/25/15/10%. */
  games: { id: string; environmentId: string }[];
  /** For each game (same order), the users who may be assigned its tickets (same length for every game). */
  assignees: string[][];
  /** The whole history ends here (created_at of the last ticket is an hour before). */
  now: Date;
  tickets: number;
  messages: number;
  players: number;
}

export interface SeedStage {
  stage: string;
  seconds: number;
  rows?: number;
}

/** A uniform [0, 1) number, a fixed function of the ticket's running id g and of j. */
const u = (j: number, g = "g") => `((hashint8(${g} * 64 + ${j})::bigint + 2147483648) % 1000000)::float8 / 1e6`;
/** A uniform [0, 1) number of the k-th event of ticket g (negative keys: apart from the ticket's). */
const ue = (j: number, g = "g", k = "k") => `((hashint8(-((${g}) * 1024 + ${k}) * 64 - ${j})::bigint + 2147483648) % 1000000)::float8 / 1e6`;

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;
const pick = (values: readonly string[], uniform: string) => `(array[${values.map(literal).join(",")}])[1 + floor(${uniform} * ${values.length})::int]`;

interface LanguageText {
  player: string[];
  agent: string[];
  items: string[];
  /** The sentence naming an item: before and after it. */
  item: [string, string];
}

export const TEXT: Record<"en" | "de" | "fr" | "ja" | "es", LanguageText> = {
  en: {
    player: [
      "I bought the season pass yesterday but the rewards never showed up in my inventory. I restarted the game twice.",
      "The game crashes every time I open the map after the last update.",
      "Someone logged into my account from another country and spent my gems. I changed my password.",
      "I cannot connect to the servers since this morning, it says error 503 and goes back to the title screen.",
      "I was charged twice for the same purchase of 1200 coins. Please refund one of the payments.",
      "My progress was lost after I switched phones. I was level 57 and now I start from the tutorial again.",
      "The event quest does not complete even though I collected all 20 items.",
      "How do I delete my account and all my data? I do not want to play anymore.",
      "My guild chat stopped working and I cannot see any messages from my friends.",
      "The login bonus was not given to me today, please check my account.",
    ],
    agent: [
      "Thank you for contacting us. We are looking into your account and will get back to you shortly.",
      "I have refunded the duplicate payment, it can take up to five days to appear on your statement.",
      "Could you please send us a screenshot of the error and the model of your device?",
      "We restored your progress, please restart the game and check again.",
      "This is a known issue and our team is working on a fix for the next update.",
      "I added the missing rewards to your inventory, they will be there after your next login.",
    ],
    items: [
      "amulet", "crossbow", "griffin", "lantern", "scepter", "gauntlet", "trident", "chalice", "compass", "hourglass",
      "talisman", "halberd", "warhammer", "cloak", "tiara", "falcon", "phoenix", "kraken", "basilisk", "wyvern",
      "unicorn", "mermaid", "centaur", "golem", "minotaur", "chimera", "hydra", "sphinx", "pegasus", "yeti",
    ],
    item: ["It is about my ", "."],
  },
  de: {
    player: [
      "Ich kann mich nicht in mein Konto einloggen. Das Spiel zeigt einen Fehler an.",
      "Ich habe Edelsteine gekauft, aber sie sind nicht angekommen. Ich bitte um Rückerstattung.",
      "Nach dem letzten Update stürzt das Spiel beim Start ab.",
      "Mein Fortschritt ist nach dem Gerätewechsel verloren gegangen.",
      "Die Belohnung des Events wurde mir nicht gutgeschrieben.",
      "Ich wurde zweimal belastet und möchte eine Rückerstattung für eine Zahlung.",
      "Meine Gilde kann keine Häuser mehr bauen, der Knopf reagiert nicht.",
      "Der Server ist seit heute Morgen nicht erreichbar.",
    ],
    agent: [
      "Vielen Dank für Ihre Nachricht. Wir prüfen Ihr Konto und melden uns in Kürze.",
      "Die Rückerstattung wurde veranlasst und erscheint in einigen Tagen auf Ihrem Konto.",
      "Bitte senden Sie uns einen Screenshot des Fehlers und das Modell Ihres Geräts.",
      "Wir haben Ihren Fortschritt wiederhergestellt, bitte starten Sie das Spiel neu.",
      "Das Problem ist bekannt und wird mit dem nächsten Update behoben.",
    ],
    items: [
      "Drachen", "Schwert", "Rüstung", "Heiltrank", "Schatztruhe", "Bogen", "Schild", "Amulett", "Umhang", "Zauberstab",
      "Helm", "Ring", "Kompass", "Laterne", "Sanduhr", "Greif", "Phönix", "Einhorn", "Zepter", "Krone",
      "Hammer", "Falke", "Golem", "Hydra", "Sphinx", "Pegasus", "Kelch", "Dreizack", "Handschuh", "Stiefel",
    ],
    item: ["Es geht um meinen Gegenstand ", "."],
  },
  fr: {
    player: [
      "Je ne peux plus me connecter à mon compte depuis la mise à jour.",
      "J'ai acheté des gemmes mais je ne les ai pas reçues. Je demande un remboursement.",
      "Le jeu plante au lancement depuis hier soir.",
      "J'ai perdu ma progression en changeant de téléphone.",
      "La récompense de l'événement n'est jamais arrivée dans mon inventaire.",
      "J'ai été débité deux fois pour le même achat.",
      "Le serveur est inaccessible depuis ce matin.",
      "Mon personnage est bloqué dans une quête et ne peut plus avancer.",
    ],
    agent: [
      "Merci de nous avoir contactés. Nous vérifions votre compte et revenons vers vous rapidement.",
      "Le remboursement a été effectué, il apparaîtra sous quelques jours.",
      "Pourriez-vous nous envoyer une capture d'écran de l'erreur ?",
      "Nous avons restauré votre progression, veuillez relancer le jeu.",
      "Ce problème est connu et sera corrigé dans la prochaine mise à jour.",
    ],
    items: [
      "dragon", "épée", "armure", "potion", "coffre", "arc", "bouclier", "amulette", "cape", "baguette",
      "casque", "anneau", "boussole", "lanterne", "sablier", "griffon", "phénix", "licorne", "sceptre", "couronne",
      "marteau", "faucon", "golem", "hydre", "sphinx", "pégase", "calice", "trident", "gantelet", "bottes",
    ],
    item: ["Cela concerne mon objet ", "."],
  },
  ja: {
    player: [
      "アカウントにログインできません。エラーが表示されます。",
      "課金したのにジェムが届きません。確認をお願いします。",
      "アップデート後にゲームが起動しません。",
      "機種変更したらデータが消えました。引き継ぎ方法を教えてください。",
      "イベントの報酬が受け取れません。",
      "ログインボーナスがもらえません。",
      "ギルドのチャットが表示されません。",
      "二重に課金されました。返金してください。",
    ],
    agent: [
      "お問い合わせありがとうございます。アカウントを確認いたします。",
      "返金の手続きを行いました。反映まで数日かかります。",
      "エラー画面のスクリーンショットを送っていただけますか。",
      "データを復元しました。ゲームを再起動してください。",
      "既知の不具合です。次のアップデートで修正されます。",
    ],
    items: [
      "ドラゴン", "魔法の剣", "黄金の鎧", "回復薬", "召喚石", "宝箱", "限定衣装", "星のかけら", "闇の盾", "風の弓",
      "炎の杖", "氷の指輪", "雷の槍", "聖なる冠", "月の首飾り", "海の宝玉", "大地の斧", "天空の翼", "古代の地図", "時の砂時計",
      "不死鳥", "一角獣", "巨人の槌", "妖精の鈴", "竜の卵", "光の弓", "影の外套", "金の鍵", "銀の笛", "虹の石",
    ],
    item: ["", "の件です。"],
  },
  es: {
    player: [
      "No puedo entrar en mi cuenta desde la última actualización.",
      "Compré gemas pero nunca llegaron. Quiero un reembolso.",
      "El juego se cierra al abrir el mapa.",
      "Perdí mi progreso al cambiar de teléfono.",
    ],
    agent: [
      "Gracias por escribirnos. Estamos revisando su cuenta.",
      "Hemos realizado el reembolso, tardará unos días.",
      "¿Podría enviarnos una captura de pantalla del error?",
    ],
    items: [
      "dragón", "espada", "armadura", "poción", "cofre", "arco", "escudo", "amuleto", "capa", "varita",
      "casco", "anillo", "brújula", "linterna", "reloj", "grifo", "fénix", "unicornio", "cetro", "corona",
      "martillo", "halcón", "gólem", "hidra", "esfinge", "pegaso", "cáliz", "tridente", "guantelete", "botas",
    ],
    item: ["Es sobre mi objeto ", "."],
  },
};

/** Private notes are written in English whatever the ticket's language. */
export const NOTES = [
  "Checked the payment provider, the second charge is real.",
  "Possible account sharing, watch for a chargeback.",
  "Escalated to the server team with the logs.",
  "High spender, answer first.",
  "Same report as an earlier ticket, same device model.",
  "Asked QA to reproduce on this device.",
];

/** Syllables of the rare reference words (three of them: 13,824 words). */
export const SYLLABLES = ["ka", "zo", "mi", "tu", "re", "vo", "ni", "sa", "lu", "pe", "dro", "qui", "xan", "bel", "mor", "tes", "fa", "gri", "hu", "jen", "wex", "yor", "ple", "cus"];

const LANGUAGE_SQL = `case when ${u(20)} < 0.5 then 'en' when ${u(20)} < 0.7 then 'de' when ${u(20)} < 0.85 then 'fr' when ${u(20)} < 0.95 then 'ja' else 'es' end`;

/** The per-language choice of `of(text)` (each language's own list), for the language column `language`. */
const byLanguage = (language: string, of: (text: LanguageText, name: string) => string) =>
  `case ${language} ${Object.entries(TEXT).map(([name, text]) => `when '${name}' then ${of(text, name)}`).join(" ")} end`;

/**
 * The text of event k of ticket g, of type `type` ('PLAYER_MESSAGE', 'AGENT_MESSAGE',
 * 'PRIVATE_NOTE') in the ticket's `language`: a sentence, maybe an item, maybe a reference word.
 */
function messageSql(g: string, k: string, type: string, language: string): string {
  const sentence = (list: (t: LanguageText) => string[], j: number) => byLanguage(language, (text) => pick(list(text), ue(j, g, k)));
  const item = byLanguage(language, (text) => `${literal(text.item[0])} || ${pick(text.items, ue(3, g, k))} || ${literal(text.item[1])}`);
  const rare = `${pick(SYLLABLES, ue(5, g, k))} || ${pick(SYLLABLES, ue(6, g, k))} || ${pick(SYLLABLES, ue(7, g, k))}`;
  return `case ${type}
    when 'PRIVATE_NOTE' then ${pick(NOTES, ue(1, g, k))}
    when 'AGENT_MESSAGE' then ${sentence((t) => t.agent, 1)} || case when ${ue(2, g, k)} < 0.2 then ' ' || ${item} else '' end
    else ${sentence((t) => t.player, 1)} || case when ${ue(2, g, k)} < 0.5 then ' ' || ${item} else '' end
      || case when ${ue(4, g, k)} < 0.08 then ' Ref: ' || ${rare} || '.' else '' end
  end`;
}

/** The type of event k (from 1) of ticket g in status `status`. */
function eventTypeSql(g: string, k: string, status: string): string {
  return `case when ${k} = 1 or ${status} = 'new' then 'PLAYER_MESSAGE' when ${ue(0, g, k)} < 0.15 then 'PRIVATE_NOTE'
    when ${k} % 2 = 0 then 'AGENT_MESSAGE' else 'PLAYER_MESSAGE' end`;
}

/**
 * How many messages ticket g has ($n tickets, $m messages in all): the base share, one more for
 * the first (m mod n) tickets, and an offset that the ticket's pair partner takes with the other
 * sign, so that the total is exactly $m.
 */
const COUNT_SQL = `(floor($m::bigint / $n::bigint)::int + case when g <= $m::bigint % $n::bigint then 1 else 0 end
  + case when g % 2 = 0 then -1 when g = $n::bigint then 0 else 1 end
    * (floor(((hashint8(((g + 1) / 2) * 64 + 30)::bigint + 2147483648) % 1000000)::float8 / 1e6 * (2 * floor($m::bigint / $n::bigint)::int - 1))::int
       - (floor($m::bigint / $n::bigint)::int - 1)))`;

/** The statement with its named parameters ($name) numbered, and the values of those it uses (Postgres cannot type an unused one). */
function bind(statement: string, values: Record<string, unknown>): [string, unknown[]] {
  const used: string[] = [];
  const text = statement.replace(/\$([a-z_]+)/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`unknown parameter $${name}`);
    if (!used.includes(name)) used.push(name);
    return `$${used.indexOf(name) + 1}`;
  });
  return [text, used.map((name) => values[name])];
}

function parameters(company: WorkspaceCompany, from: number, to: number): Record<string, unknown> {
  const stepMs = Math.max(1, Math.floor((365 * 86_400_000) / company.tickets));
  const start = new Date(company.now.getTime() - 3_600_000 - company.tickets * stepMs);
  return {
    company: company.companyId,
    games: company.games.map((game) => game.id),
    environments: company.games.map((game) => game.environmentId),
    start: start.toISOString(),
    step_ms: stepMs,
    players: company.players,
    from,
    to,
    now: company.now.toISOString(),
    assignees: company.assignees,
    n: company.tickets,
    m: company.messages,
  };
}

/**
 * Per ticket: its game, status, player, language, message count, the gap between its messages
 * (5 minutes to 4 hours, and the last one before `now`) and when it was created.
 */
const TICKET_BASIS = `
  select g, created_at, gi, status, p, language, c, gap,
    (hashint8(p * 64 + 11)::bigint + 2147483648) % 1000000 < 150000 as anonymous,
    ${u(14)} as u_agent, ${u(15)} as u_assigned, ${u(16)} as u_author
  from (
    select g, created_at, c,
      case when ${u(0)} < 0.5 then 1 when ${u(0)} < 0.75 then 2 when ${u(0)} < 0.9 then 3 else 4 end as gi,
      case when created_at > $now::timestamptz - interval '14 days' then
        case when ${u(1)} < 0.40 then 'closed' when ${u(1)} < 0.52 then 'new' when ${u(1)} < 0.67 then 'waiting'
          when ${u(1)} < 0.85 then 'assigned' when ${u(1)} < 0.90 then 'unassigned' else 'on_hold' end
      else
        case when ${u(1)} < 0.97 then 'closed' when ${u(1)} < 0.9736 then 'new' when ${u(1)} < 0.9781 then 'waiting'
          when ${u(1)} < 0.9835 then 'assigned' when ${u(1)} < 0.985 then 'unassigned' else 'on_hold' end
      end as status,
      1 + floor($players::int * power(${u(10)}, 1.5))::bigint as p,
      ${LANGUAGE_SQL} as language,
      least((5 + ${u(31)} * 240) * interval '1 minute', ($now::timestamptz - created_at) / (c + 2)) as gap
    from (
      select g, $start::timestamptz + (g * $step_ms::bigint) * interval '1 millisecond' as created_at, ${COUNT_SQL} as c
      from generate_series($from::bigint, $to::bigint) g
    ) s
  ) h`;

/** Inserts tickets with running ids from..to (inclusive), every column as its conversation implies. */
async function insertTickets(client: pg.Client, company: WorkspaceCompany, from: number, to: number): Promise<number> {
  const statement = `
    insert into tickets (company_id, running_id, game_id, game_environment_id, service_player_id, player_external_id, player_name,
      email, status, resolution_type, waiting_since, assignee_id, support_source, channels, language, platform, metadata,
      tags, fields, first_message, first_message_normalized, last_player_message_at, created_at, last_activity_at, updated_at,
      closed_at)
    select $company::uuid, g, ($games::uuid[])[gi], ($environments::uuid[])[gi], md5('ws-player-' || gi || '-' || p)::uuid,
      case when anonymous then null else 'player-' || p end,
      case when anonymous then null else 'Player ' || p end,
      'player' || p || '@example.com',
      status, resolution,
      case when status = 'waiting' then last_event end,
      assignee, source,
      case when source in ('IN_APP', 'WIDGET') then '{chat}'::text[] else '{email}'::text[] end,
      language, platform,
      case when anonymous then jsonb_build_object('platform', platform) else jsonb_build_object('platform', platform, 'playerTier', 1 + p % 3) end,
      array_remove(array[
        case when ${u(2)} < 0.10 then 'bug' end,
        case when ${u(3)} < 0.04 then 'billing' end,
        case when ${u(4)} < 0.01 then 'vip' end,
        case when gi = 1 and ${u(5)} < 0.06 then 'crash' end]::text[], null),
      jsonb_strip_nulls(jsonb_build_object(
        'category', case when ${u(6)} < 0.05 then '"payment"'::jsonb when ${u(6)} < 0.25 then '"gameplay"'::jsonb
          when ${u(6)} < 0.32 then '"technical"'::jsonb when ${u(6)} < 0.36 then '"account"'::jsonb end,
        'level', case when ${u(7)} < 0.7 then to_jsonb(1 + floor(${u(7)} / 0.7 * 120)::int) end)),
      first_message,
      trim(regexp_replace(lower(normalize(first_message, NFKC)), '\\s+', ' ', 'g')),
      created_at + (last_player_k - 1) * gap,
      created_at,
      case when status = 'closed' then closed_at else last_event end,
      case when status = 'closed' then closed_at else last_event end,
      closed_at
    from (
      select h.*, e.last_player_k, e.first_message, created_at + (c - 1) * gap as last_event,
        case when status = 'closed' then created_at + c * gap end as closed_at,
        case when status = 'closed' then case when ${u(9)} < 0.75 then 'resolved' when ${u(9)} < 0.85 then 'rejected' else 'auto_closed' end end as resolution,
        case when status in ('assigned', 'waiting', 'on_hold', 'closed') and (status = 'assigned' or u_assigned < 0.9)
          then ($assignees::uuid[])[gi][1 + floor(u_agent * array_length($assignees::uuid[], 2))::int] end as assignee,
        case when ${u(12)} < 0.5 then 'IN_APP' when ${u(12)} < 0.7 then 'API' when ${u(12)} < 0.85 then 'EMAIL' else 'WIDGET' end as source,
        ${pick(["ios", "ios", "android", "android", "android", "win", "macos", "web", "playstation_5", "switch", "xbox_series"], u(21))} as platform
      from (${TICKET_BASIS}) h
      cross join lateral (
        select max(k) filter (where ${eventTypeSql("g", "k", "h.status")} = 'PLAYER_MESSAGE') as last_player_k,
          (select ${messageSql("g", "1", "'PLAYER_MESSAGE'", "h.language")}) as first_message
        from generate_series(1, c) k
      ) e
    ) t`;
  const result = await client.query(...bind(statement, parameters(company, from, to)));
  return result.rowCount ?? 0;
}

/** The conversations of tickets from..to: their messages and notes, and the END of closed ones. */
async function insertEvents(client: pg.Client, company: WorkspaceCompany, from: number, to: number): Promise<number> {
  const statement = `
    insert into ticket_events (ticket_id, company_id, ticket_running_id, type, data, actor, search_config, created_at)
    select t.id, t.company_id, t.running_id, e.type,
      case e.type
        when 'END' then jsonb_build_object('resolutionType', t.resolution_type)
        when 'PRIVATE_NOTE' then jsonb_build_object('message', e.text, 'attachments', '[]'::jsonb)
        else jsonb_build_object('message', e.text, 'language', t.language, 'attachments', '[]'::jsonb)
      end,
      case
        when e.type = 'PLAYER_MESSAGE' then jsonb_build_object('type', 'player', 'id', t.service_player_id)
        when e.type = 'END' and t.resolution_type = 'auto_closed' then '{"type":"system","id":"auto-close"}'::jsonb
        else jsonb_build_object('type', 'user', 'id', coalesce(t.assignee_id, ($assignees::uuid[])[h.gi][1 + floor(h.u_author * array_length($assignees::uuid[], 2))::int]))
      end,
      ticket_search_config(t.language), e.at
    from (${TICKET_BASIS}) h
    join tickets t on t.company_id = $company::uuid and t.running_id = h.g
    cross join lateral (
      select k, type, at, case when type = 'END' then null else ${messageSql("h.g", "k", "type", "t.language")} end as text
      from (
        select k, ${eventTypeSql("h.g", "k", "t.status")} as type, h.created_at + (k - 1) * h.gap as at from generate_series(1, h.c) k
        union all
        select h.c + 1, 'END', t.closed_at where t.status = 'closed' and t.resolution_type <> 'merged'
      ) x
    ) e
    order by h.g, e.k`;
  const result = await client.query(...bind(statement, parameters(company, from, to)));
  return result.rowCount ?? 0;
}

/** The secondary indexes of `table` (not those of its constraints), as pg_get_indexdef gives them. */
async function secondaryIndexes(client: pg.Client, table: string): Promise<{ name: string; definition: string }[]> {
  const result = await client.query<{ name: string; definition: string }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
     from pg_index i
     where i.indrelid = $1::regclass
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
    [table],
  );
  return result.rows;
}

const seconds = (since: number) => Math.round((Date.now() - since) / 100) / 10;

/**
 * Loads the company into an empty tickets schema (search_path tickets, public) and returns the
 * time of each stage: drop the secondary indexes of tickets, ticket_events and ticket_reads;
 * insert tickets and their events in batches; the players; the reads; rebuild every index from
 * its own definition (exactly what the migrations created); VACUUM ANALYZE. Foreign keys are not
 * checked while loading (session_replication_role = replica): every event is written for a
 * ticket of the same statement's batch.
 */
export async function seedWorkspace(client: pg.Client, company: WorkspaceCompany): Promise<SeedStage[]> {
  const stages: SeedStage[] = [];
  await client.query("set maintenance_work_mem = '1GB'");
  await client.query("set synchronous_commit = off");
  await client.query("set session_replication_role = replica");
  const indexes = [
    ...(await secondaryIndexes(client, "tickets")),
    ...(await secondaryIndexes(client, "ticket_events")),
    ...(await secondaryIndexes(client, "ticket_reads")),
  ];
  progress(`dropping ${indexes.length} secondary indexes for the bulk load`);
  for (const index of indexes) await client.query(`drop index ${index.name}`);

  const batch = 100_000;
  let ticketSeconds = 0;
  let eventSeconds = 0;
  let events = 0;
  const began = Date.now();
  for (let first = 1; first <= company.tickets; first += batch) {
    const last = Math.min(company.tickets, first + batch - 1);
    let at = Date.now();
    await insertTickets(client, company, first, last);
    ticketSeconds += (Date.now() - at) / 1000;
    at = Date.now();
    events += await insertEvents(client, company, first, last);
    eventSeconds += (Date.now() - at) / 1000;
    progress(`  ... tickets up to ${last}, ${events} events (${Math.round(last / ((Date.now() - began) / 1000))} tickets/s)`);
  }
  stages.push({ stage: "tickets", seconds: Math.round(ticketSeconds * 10) / 10, rows: company.tickets });
  stages.push({ stage: "events (messages, notes, END; search vectors computed by Postgres)", seconds: Math.round(eventSeconds * 10) / 10, rows: events });
  await client.query(
    `insert into ticket_counters (company_id, last_running_id, last_created_at)
     select company_id, max(running_id), max(created_at) from tickets where company_id = $1 group by company_id
     on conflict (company_id) do update set last_running_id = excluded.last_running_id, last_created_at = excluded.last_created_at`,
    [company.companyId],
  );

  // One player record per player and game, as the players service resolves them (an anonymous
  // player is known by email only).
  let at = Date.now();
  const players = await client.query(
    `insert into players.players (id, company_id, game_id, external_id, email, email_normalized, name, tier, created_at, updated_at)
     select distinct on (service_player_id) service_player_id, company_id, game_id, player_external_id, email, lower(email), player_name,
       (metadata->>'playerTier')::int, created_at, created_at
     from tickets where company_id = $1
     order by service_player_id, created_at`,
    [company.companyId],
  );
  stages.push({ stage: "players", seconds: seconds(at), rows: players.rowCount ?? 0 });

  // What the assignees read: most looked at their ticket at its last activity, some before the
  // player's last message (those are unread for them).
  at = Date.now();
  const reads = await client.query(
    `insert into ticket_reads (user_id, ticket_id, company_id, read_at)
     select assignee_id, id, company_id,
       case when (hashint8(running_id * 64 + 40)::bigint + 2147483648) % 1000000 < 700000 then last_activity_at else created_at end
     from tickets where company_id = $1 and assignee_id is not null`,
    [company.companyId],
  );
  stages.push({ stage: "ticket reads", seconds: seconds(at), rows: reads.rowCount ?? 0 });
  await client.query("set session_replication_role = origin");

  for (const index of indexes) {
    at = Date.now();
    await client.query(index.definition);
    stages.push({ stage: `index ${index.name}`, seconds: seconds(at) });
    progress(`built ${index.name} in ${seconds(at)} s`);
  }
  at = Date.now();
  for (const table of ["tickets", "ticket_events", "ticket_reads", "ticket_counters", "players.players"]) await client.query(`vacuum (analyze) ${table}`);
  stages.push({ stage: "vacuum analyze", seconds: seconds(at) });
  return stages;
}
