// Each game's table drawn in SVG, from a seat's or a spectator's view (the
// game's view message, as JSON): cards as cards, tokens as tokens, hands face
// down where the view does not show them. One function per game,
//
//   HoardTables.village(view, match, options)       (and dragons_gold,
//   HoardTables.frost_dragon(...), HoardTables.hedonia(...))
//
// returns an <svg class="hoard-table GAME">: its viewBox is 440 wide, so it
// scales to its box and stays legible on a phone. Every drawn thing carries
// its facts in words as its <title> (read by screen readers and tests), a
// class naming what it is ("space", "stall", "dragon", "card", "hand"...) and
// a stable key, data-thing, that names it from one step to the next:
//
//   village       favor:I  stall:COST  deck  seat:S  hand:S  card:S:KIND  bribe:S:I
//                 (KIND as "sword", "wild")
//   dragons_gold  dragon:I  pile  seat:S  adventurer:S:NAME  hand:S  token:S:KIND
//                 object:S:NAME  (NAME and KIND as the view's fields: "knight_4",
//                 "silver", "decoy_purse")
//   frost_dragon  space:N  pawn:S  trick  played:S  seat:S  hand:S  card:ID
//   hedonia       king  house:S  gap:I  seat:S  hand:S  card:S:ASSET  treasury:S
//                 (ASSET as the view's counts: "magic_carrots")
//
// options.actions maps keys to the index of a legal action: a thing whose
// key is there is marked clickable (data-action="INDEX", class "actionable",
// a button to the keyboard), for a page that plays a seat by clicks;
// HoardTables.actionKeys(game, seat, legal_actions) gives it for a decision.
// The <svg> holds the table's state in one sentence as its <desc>, and says
// whether the match is over in data-over.
//
// HoardTables.animate(before, after) makes a step visible: what a step
// changed or brought fades in, and the Frost Dragon's pawns walk from their
// old space to their new one (CSS; nothing moves for prefers-reduced-motion).
"use strict";

const HoardTables = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const W = 440;  // the width of every table, in the viewBox's units

  function s(tag, attributes = {}, ...children) {
    const node = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (value === undefined || value === null) continue;
      if (name === "text") node.textContent = value;
      else node.setAttribute(name, String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  // A drawn thing: a group at (x, y) with its facts as its title, its kind
  // as its class and its key; clickable where options.actions has the key.
  function thing(cls, key, title, options, ...children) {
    const node = s("g", { class: cls, "data-thing": key, role: "img" }, s("title", { text: title }), ...children);
    const action = options && options.actions ? options.actions[key] : undefined;
    if (action !== undefined) {
      node.setAttribute("data-action", String(action));
      node.setAttribute("role", "button");
      node.setAttribute("tabindex", "0");
      node.classList.add("actionable");
    }
    return node;
  }

  // A drawn thing that holds others: a group, named by its title.
  function region(cls, key, title, options, ...children) {
    const node = thing(cls, key, title, options, ...children);
    if (!node.classList.contains("actionable")) node.setAttribute("role", "group");
    return node;
  }

  function at(node, x, y) {
    node.setAttribute("transform", `translate(${x},${y})`);
    return node;
  }

  function text(x, y, words, cls = "", anchor = "middle") {
    return s("text", { x, y, class: cls, "text-anchor": anchor, text: words });
  }

  // "1 match", "2 matches": a count and its noun, singular for one.
  function plural(n, one, many = `${one}s`) {
    return `${n} ${Number(n) === 1 ? one : many}`;
  }

  function word(value, prefix) {
    return String(value || "").replace(prefix, "").replace(/_/g, " ").toLowerCase();
  }

  function unset(value) {
    return !value || String(value).endsWith("UNSPECIFIED");
  }

  // The non-zero entries of a counts message, in its order: [[name, n]...].
  function entries(message) {
    return Object.entries(message || {}).filter(([, n]) => Number(n) > 0).map(([k, n]) => [k, Number(n)]);
  }

  function total(message) {
    return entries(message).reduce((sum, [, n]) => sum + n, 0);
  }

  // "2 swords, 1 wild", or "none": a counts message whose fields are plural
  // names ("doom_snails"), or with `singularNames` singular ones.
  function counts(message, singularNames = false) {
    const parts = entries(message).map(([kind, n]) => {
      const name = kind.replace(/_/g, " ");
      if (singularNames) return plural(n, name);
      return `${n} ${n === 1 ? singular(name) : name}`;
    });
    return parts.length ? parts.join(", ") : "none";
  }

  // The singular of a plural name ("doom snails", "treasuries").
  function singular(name) {
    if (name.endsWith("ies")) return `${name.slice(0, -3)}y`;
    return name.endsWith("s") && !name.endsWith("ss") ? name.slice(0, -1) : name;
  }

  function seatName(match, seat) {
    const player = match && match.seats && match.seats[seat] ? match.seats[seat].player : "";
    return `Seat ${seat}${player ? `: ${player}` : ""}`;
  }

  // Seats are told apart by colour and always by their number.
  const SEAT_COLORS = ["#b71c1c", "#0d47a1", "#1b5e20", "#4a148c", "#e65100", "#006064"];

  // ---- Pieces ---------------------------------------------------------------

  // A rounded label ("axe ×2"): a card or asset in small. {w, h, node}.
  function chip(label, fill, cls, key, title, options, dark = false) {
    const w = Math.max(40, Math.round(7.4 * label.length + 16)), h = 24;
    const node = thing(`chip ${cls}`, key, title, options,
      s("rect", { width: w, height: h, rx: 5, fill, class: "face" }),
      text(w / 2, 16.5, label, dark ? "on-dark" : ""));
    return { w, h, node };
  }

  // A card face up: its lines of words on its colour. {w, h, node}.
  function card(w, h, fill, lines, cls, key, title, options, dark = false) {
    const node = thing(`card ${cls}`, key, title, options,
      s("rect", { width: w, height: h, rx: 6, fill, class: "face" }));
    lines.forEach((line, i) => {
      const big = i === 0 && line.big;
      node.append(text(w / 2, big ? h / 2 + 8 : 17 + 16 * i, line.text || line,
                       `${dark ? "on-dark" : ""}${big ? " big" : ""}`));
    });
    return { w, h, node };
  }

  // Cards face down: a fan of backs and how many. {w, h, node}.
  function backs(n, cls, key, title, options, what = "card") {
    const shown = Math.min(n, 10);
    const node = thing(`${cls} face-down`, key, title, options);
    for (let i = 0; i < shown; ++i) node.append(s("rect", { x: 9 * i, y: 0, width: 22, height: 32, rx: 3, class: "back" }));
    const w = 9 * Math.max(shown - 1, 0) + 22 + 6;
    node.append(text(shown ? w : 0, 21, plural(n, what), "", "start"));
    return { w: w + 8 * plural(n, what).length, h: 32, node };
  }

  // A round token: a count and a kind's letters on its colour. {w, h, node}.
  function token(label, fill, cls, key, title, options, dark = false, r = 15) {
    const node = thing(`token ${cls}`, key, title, options,
      s("circle", { cx: r, cy: r, r, fill, class: "face" }),
      text(r, r + 4.5, label, dark ? "on-dark small" : "small"));
    return { w: 2 * r, h: 2 * r, node };
  }

  // Items laid left to right into `parent`, wrapping at `width`; the height used.
  function flow(parent, items, x, y, width, gap = 6) {
    let cx = x, cy = y, row = 0;
    for (const item of items) {
      if (cx > x && cx + item.w > x + width) {
        cx = x;
        cy += row + gap;
        row = 0;
      }
      parent.append(at(item.node, cx, cy));
      cx += item.w + gap;
      row = Math.max(row, item.h);
    }
    return items.length ? cy + row - y : 0;
  }

  // A section's heading across the table.
  function heading(parent, y, words) {
    parent.append(text(0, y + 15, words, "heading", "start"));
    return 22;
  }

  // A player's box: who, marked when to act, and its rows of things, each
  // row a label and its items. {w, h, node}.
  function playerPanel(match, seat, acting, rows, options, extra = "") {
    const who = `${seatName(match, seat)}${acting ? " (to act)" : ""}`;
    const node = region(`player${acting ? " acting" : ""}`, `seat:${seat}`, who + extra, options);
    node.setAttribute("data-seat", String(seat));
    node.setAttribute("aria-label", who);
    const frame = s("rect", { width: W, height: 0, rx: 8, class: "panel" });
    node.append(frame, s("circle", { cx: 16, cy: 16, r: 10, fill: SEAT_COLORS[seat % SEAT_COLORS.length] }),
                text(16, 20.5, String(seat), "on-dark small"),
                text(32, 21, `${acting ? "\u25b6 " : ""}${who}`, "who", "start"));
    let y = 34;
    for (const row of rows) {
      if (!row) continue;
      const group = region(row.cls, row.key, row.title, options);
      group.append(text(0, 16, row.label, "label", "start"));
      const h = Math.max(flow(group, row.items, 78, 0, W - 90), 20);
      node.append(at(group, 10, y));
      y += h + 8;
    }
    frame.setAttribute("height", String(y + 2));
    return { w: W, h: y + 2, node };
  }

  // The <svg> of a game's table, `height` high, with its sentence.
  function table(game, label, height, over, state, ...children) {
    const root = s("svg", { xmlns: NS, class: `hoard-table ${game}`, viewBox: `-4 -4 ${W + 8} ${height + 8}`,
                            role: "group", "aria-label": label, "data-over": String(Boolean(over)) },
                   s("desc", { text: state }), ...children);
    return root;
  }

  // Stacks blocks (each {h, node} or a function of y returning a height)
  // down the page; the height used.
  function stack(parent, blocks, gap = 10) {
    let y = 0;
    for (const block of blocks) {
      if (!block) continue;
      if (typeof block === "function") y += block(y);
      else {
        parent.append(at(block.node, block.x || 0, y));
        y += block.h;
      }
      y += gap;
    }
    return y;
  }

  // ---- Please Don't Burn My Village! ----------------------------------------

  const VILLAGE_KINDS = ["swords", "scrolls", "feathers", "potions", "axes", "crowns", "wilds"];
  const VILLAGE_COLORS = { sword: "#b0bec5", scroll: "#ffe0b2", feather: "#b3e5fc", potion: "#e1bee7",
                           axe: "#ffab91", crown: "#fff176", wild: "#c5e1a5" };

  function villageKind(card) { return word(card, "VILLAGE_CARD_"); }

  function villageCards(cards) {
    const parts = VILLAGE_KINDS.filter((k) => cards && cards[k] > 0)
                               .map((k) => `${cards[k]} ${cards[k] === 1 ? k.replace(/s$/, "") : k}`);
    return parts.length ? parts.join(", ") : "none";
  }

  // Cards of a counts message as chips, one per kind: "axe ×2".
  function villageChips(cards, keyOf, options) {
    return VILLAGE_KINDS.filter((k) => cards && cards[k] > 0).map((k) => {
      const one = k.replace(/s$/, "");
      return chip(`${one} \u00d7${cards[k]}`, VILLAGE_COLORS[one], `kind-${one}`, keyOf(one),
                  plural(cards[k], one), options);
    });
  }

  function village(view, match, options = {}) {
    const root = table("village", "The village table", 0, view.over, "");
    const blocks = [];
    // The Dragon's Favor: six spaces, lowest to highest, a token on each.
    blocks.push((y) => {
      const h = heading(root, y, "The Dragon's Favor (lowest to highest)");
      const favor = s("g", { class: "favor", role: "group", "aria-label": "The Dragon's Favor, lowest to highest" });
      view.favor.forEach((kind, i) => {
        const k = villageKind(kind);
        const space = thing("space", `favor:${i}`, `Favor space ${i + 1}: ${k}, worth ${view.favor_values[i]}`, options,
          s("rect", { width: 68, height: 66, rx: 4, class: "slot" }),
          s("circle", { cx: 34, cy: 27, r: 24, fill: VILLAGE_COLORS[k], class: "face" }),
          text(34, 30.5, k, "small"), text(34, 61, `worth ${view.favor_values[i]}`, "small"));
        favor.append(at(space, 6 + 73 * i, 0));
      });
      root.append(at(favor, 0, y + h));
      return h + 66;
    });
    // The Black Market: its four stalls, by cost.
    blocks.push((y) => {
      const h = heading(root, y, "The Black Market");
      const market = s("g", { class: "market", role: "group", "aria-label": "The Black Market" });
      const stalls = view.market.map((stall, cost) => {
        const node = region("stall", `stall:${cost}`,
                           `Stall ${cost} (${cost === 0 ? "free" : `costs ${cost}`}): ${villageCards(stall)}`, options);
        const frame = s("rect", { width: 104, height: 0, rx: 6, class: "slot dashed" });
        node.append(frame, text(52, 17, cost === 0 ? "free" : `costs ${cost}`, "label"));
        const items = villageChips(stall, (k) => `stall:${cost}:${k}`, {});
        const used = flow(node, items, 8, 26, 88, 4);
        return { node, frame, h: 30 + Math.max(used, 24) };
      });
      const tall = Math.max(...stalls.map((st) => st.h));
      stalls.forEach((st, i) => { st.frame.setAttribute("height", String(tall)); market.append(at(st.node, 110 * i, 0)); });
      root.append(at(market, 0, y + h));
      return h + tall;
    });
    // The deck and the discard.
    const discard = total(view.discard);
    const deck = thing("deck", "deck", `Deck: ${plural(view.deck_size, "card")} \u00b7 discard: ${villageCards(view.discard)}` +
                                       (view.end_reason ? ` \u00b7 ended: ${view.end_reason}` : ""), options,
      s("rect", { width: 30, height: 40, rx: 4, class: "back" }),
      text(40, 25, `Deck ${view.deck_size}`, "label", "start"),
      s("rect", { x: 130, width: 30, height: 40, rx: 4, class: discard ? "slot" : "slot dashed" }),
      text(170, 25, `Discard ${discard}`, "label", "start"));
    blocks.push({ h: 40, node: deck });
    for (const p of view.players) {
      const acting = !view.over && view.current_seat === p.seat;
      const hand = p.hand
          ? { cls: "hand", key: `hand:${p.seat}`, title: `Hand: ${villageCards(p.hand)}`, label: "Hand",
              items: villageChips(p.hand, (k) => `card:${p.seat}:${k}`, options) }
          : { cls: "hand", key: `hand:${p.seat}`, title: `Hand: ${plural(p.hand_size, "card")}`, label: "Hand",
              items: [backs(p.hand_size, "cards", `hand:${p.seat}:backs`, plural(p.hand_size, "card face down"), {})] };
      const known = total(p.known) ? { cls: "known", key: `known:${p.seat}`, title: `Known in hand: ${villageCards(p.known)}`,
                                       label: "Known", items: villageChips(p.known, (k) => `known:${p.seat}:${k}`, {}) } : null;
      const bribes = { cls: "bribes", key: `bribes:${p.seat}`, label: "Bribes",
        title: p.bribes.length ? p.bribes.map((b) => `Bribe: ${b.treasures} ${villageKind(b.treasure)}` +
                                                     `${b.wilds ? ` + ${b.wilds} wild` : ""}`).join("; ") : "No bribe yet",
        items: p.bribes.map((b, i) => {
          const k = villageKind(b.treasure);
          const label = `${k} \u00d7${b.treasures}${b.wilds ? ` +${b.wilds}w` : ""}`;
          return chip(label, VILLAGE_COLORS[k], "bribe", `bribe:${p.seat}:${i}`,
                      `Bribe: ${b.treasures} ${k}${b.wilds ? ` + ${b.wilds} wild` : ""}`, options);
        }) };
      blocks.push(playerPanel(match, p.seat, acting, [hand, known, bribes], options));
    }
    const height = stack(root, blocks);
    root.setAttribute("viewBox", `-4 -4 ${W + 8} ${height + 4}`);
    root.querySelector("desc").textContent =
        `Deck: ${plural(view.deck_size, "card")} \u00b7 discard: ${villageCards(view.discard)}` +
        (view.end_reason ? ` \u00b7 ended: ${view.end_reason}` : "");
    return root;
  }

  // ---- Dragon's Gold ---------------------------------------------------------

  const DG_TOKENS = { silver: ["#cfd8dc", "si"], gold: ["#ffd54f", "au"], red: ["#c62828", "r"],
                      blue: ["#1565c0", "b"], green: ["#2e7d32", "g"], purple: ["#6a1b9a", "p"],
                      yellow: ["#fff59d", "y"], white: ["#ffffff", "w"], black: ["#212121", "bk"] };
  const DG_DARK = new Set(["red", "blue", "green", "purple", "black"]);
  const DG_ADVENTURERS = [["knight_4", "K4"], ["knight_3", "K3"], ["thief", "Th"], ["wizard", "Wz"]];

  function dgTokens(tokens, keyOf, options) {
    const shown = Object.keys(DG_TOKENS).filter((kind) => Number((tokens || {})[kind]) > 0);
    return shown.map((kind) => [kind, Number(tokens[kind])]).map(([kind, n]) => token(`${n}${DG_TOKENS[kind][1]}`, DG_TOKENS[kind][0], `kind-${kind}`,
                                                    keyOf(kind), `${n} ${kind}`, options, DG_DARK.has(kind)));
  }

  function dgAdventurer(value) {
    const name = word(value, "DRAGONS_GOLD_ADVENTURER_");
    return { name, short: (DG_ADVENTURERS.find(([k]) => k.replace("_", " ") === name) || [, name])[1] };
  }

  function dragons_gold(view, match, options = {}) {
    const over = !unset(view.end_reason);
    const root = table("dragons_gold", "The Dragon's Gold table", 0, over, "");
    const blocks = [];
    // The dragons in play: strength, sleeping potions, their hoard (face up
    // and face down) and who attacks them.
    blocks.push((y) => {
      const h = heading(root, y, "Dragons");
      const row = s("g", { class: "dragons", role: "group", "aria-label": "Dragons" });
      const drawn = view.dragons.map((d, i) => {
        const attackers = d.attackers.map((a) => `seat ${a.seat} (${dgAdventurer(a.adventurer).name})`);
        const node = region("dragon", `dragon:${i}`,
          `Dragon ${i + 1} (card ${d.card}), strength ${d.strength}` +
          (d.sleeping_potions ? `, ${plural(d.sleeping_potions, "sleeping potion")}` : "") +
          ` \u00b7 treasure: ${counts(d.tokens)}${d.hidden_tokens ? ` + ${d.hidden_tokens} face down` : ""}` +
          ` \u00b7 attackers: ${attackers.length ? attackers.join(", ") : "none"}`, options);
        const frame = s("rect", { width: 140, height: 0, rx: 10, class: "dragon-card" });
        node.append(frame, s("path", { d: "M8 8 l8 -5 l8 5 l-3 12 h-10 z", class: "dragon-head" }),
                    text(70, 22, `dragon ${i + 1}`, "label"),
                    s("circle", { cx: 120, cy: 18, r: 14, class: "strength" }), text(120, 23.5, String(d.strength), "on-dark"));
        let yy = 36;
        if (d.sleeping_potions) {
          node.append(text(8, yy + 12, `\u263e ${plural(d.sleeping_potions, "potion")}`, "small", "start"));
          yy += 18;
        }
        const hoard = dgTokens(d.tokens, (k) => `dragon:${i}:${k}`, {});
        if (d.hidden_tokens) {
          hoard.push(token(`${d.hidden_tokens}?`, "#455a64", "hidden", `dragon:${i}:hidden`,
                           `${d.hidden_tokens} face down`, {}, true));
        }
        yy += flow(node, hoard, 6, yy, 128, 3) + 6;
        const pawns = d.attackers.map((a, j) => {
          const who = dgAdventurer(a.adventurer);
          return chip(`${a.seat}\u00b7${who.short}`, SEAT_COLORS[a.seat % SEAT_COLORS.length], "attacker",
                      `dragon:${i}:attacker:${j}`, `seat ${a.seat}'s ${who.name}`, {}, true);
        });
        yy += flow(node, pawns, 6, yy, 128, 3) + 6;
        return { node, frame, h: yy };
      });
      const tall = Math.max(0, ...drawn.map((d) => d.h));
      let used = 0;
      drawn.forEach((d, i) => {
        d.frame.setAttribute("height", String(tall));
        row.append(at(d.node, 150 * (i % 3), Math.floor(i / 3) * (tall + 8)));
        used = Math.floor(i / 3) * (tall + 8) + tall;
      });
      root.append(at(row, 0, y + h));
      return h + used;
    });
    // The piles beside them.
    blocks.push({ h: 40, node: thing("piles", "pile",
      `Phase: ${word(view.phase, "DRAGONS_GOLD_PHASE_")} \u00b7 turn ${view.turns} \u00b7 dragon pile ${view.pile_size}` +
      ` \u00b7 bag ${view.bag_size} \u00b7 objects ${view.object_deck_size}`, options,
      s("rect", { width: 30, height: 40, rx: 4, class: "back" }), text(36, 25, `${view.pile_size} dragons`, "label", "start"),
      s("path", { d: "M160 8 q15 -10 30 0 l6 26 q-21 10 -42 0 z", class: "bag" }),
      text(202, 25, `bag ${view.bag_size}`, "label", "start"),
      s("rect", { x: 290, width: 26, height: 36, rx: 3, class: "back object" }),
      text(322, 25, `${view.object_deck_size} objects`, "label", "start")) });
    // A negotiation under way: its treasure, the proposal and the votes.
    const n = view.negotiation;
    if (n && n.contributors && n.contributors.length) {
      const rows = [
        { cls: "treasure", key: "negotiation:treasure", label: "Treasure", title: `Treasure: ${counts(n.tokens)}`,
          items: dgTokens(n.tokens, (k) => `negotiation:${k}`, {}) },
        ...(n.proposal.length ? n.proposal : []).map((sh) => ({
          cls: "share", key: `share:${sh.seat}`, label: `To seat ${sh.seat}`, title: `Proposed to seat ${sh.seat}: ${counts(sh.tokens)}`,
          items: dgTokens(sh.tokens, (k) => `share:${sh.seat}:${k}`, {}) }))];
      const title = `Negotiation: contributors seats ${n.contributors.join(", ")} \u00b7 proposal ${n.proposals_made} of ` +
                    `${n.proposals_allowed} by seat ${n.proposer} \u00b7 voted: ${n.voted.length ? `seats ${n.voted.join(", ")}` : "nobody yet"}` +
                    (n.last_accepted.length ? ` \u00b7 last accepted by ${n.last_accepted.join(", ")}` : "") +
                    (n.last_rejected.length ? ` \u00b7 last rejected by ${n.last_rejected.join(", ")}` : "");
      const panel = region("negotiation", "negotiation", title, options);
      const frame = s("rect", { width: W, height: 0, rx: 8, class: "panel dashed" });
      panel.append(frame, text(10, 20, `Negotiation \u00b7 proposal ${n.proposals_made}/${n.proposals_allowed} by seat ${n.proposer}` +
                                       ` \u00b7 voted ${n.voted.length}/${n.contributors.length}`, "label", "start"));
      let yy = 30;
      for (const row of rows) {
        const group = region(row.cls, row.key, row.title);
        group.append(text(0, 18, row.label, "label", "start"));
        const used = Math.max(flow(group, row.items, 78, 0, W - 90, 3), 24);
        panel.append(at(group, 10, yy));
        yy += used + 6;
      }
      frame.setAttribute("height", String(yy + 4));
      blocks.push({ h: yy + 4, node: panel });
    }
    const m = view.market;
    if (m && m.offer && m.offerer !== undefined && (m.offers_left || []).length) {
      const offer = `Seat ${m.offerer} offers seat ${m.offer.to} ${counts(m.offer.give)} for ${counts(m.offer.get)}`;
      const panel = region("market-offer", "market", offer, options,
        s("rect", { width: W, height: 44, rx: 8, class: "panel dashed" }));
      const items = [...dgTokens(m.offer.give, (k) => `give:${k}`, {}), chip("for", "#eeeeee", "for", "for", "for", {}),
                     ...dgTokens(m.offer.get, (k) => `get:${k}`, {})];
      panel.append(text(10, 27, `Seat ${m.offerer} \u2192 seat ${m.offer.to}`, "label", "start"));
      flow(panel, items, 140, 7, W - 150, 3);
      blocks.push({ h: 44, node: panel });
    }
    for (const p of view.players) {
      const a = p.adventurers || {};
      const adventurers = DG_ADVENTURERS.map(([k, short]) => {
        const state = word(a[k], "DRAGONS_GOLD_ADVENTURER_STATE_");
        const fill = state === "ready" ? SEAT_COLORS[p.seat % SEAT_COLORS.length] : state === "attacking" ? "#ffffff" : "#9e9e9e";
        return chip(`${short} ${state}`, fill, `adventurer ${state}`, `adventurer:${p.seat}:${k}`,
                    `${k.replace("_", " ")} ${state}`, options, state === "ready");
      });
      const visible = counts(p.tokens) !== "none" || p.token_count === 0;
      const treasure = visible
          ? { cls: "hand", key: `hand:${p.seat}`, label: "Treasure", title: `Treasure: ${counts(p.tokens)} (${plural(p.token_count, "token")})`,
              items: dgTokens(p.tokens, (k) => `token:${p.seat}:${k}`, options) }
          : { cls: "hand", key: `hand:${p.seat}`, label: "Treasure", title: `Treasure: ${plural(p.token_count, "token")}`,
              items: [backs(p.token_count, "tokens", `hand:${p.seat}:backs`, plural(p.token_count, "token face down"), {}, "token")] };
      const objectsShown = counts(p.objects) !== "none" || !p.object_count;
      const objects = { cls: "objects", key: `objects:${p.seat}`, label: "Objects",
        title: objectsShown ? `Magic objects: ${counts(p.objects, true)}` : `Magic objects: ${p.object_count}`,
        items: objectsShown
            ? entries(p.objects).map(([k, c]) => chip(`${k.replace(/_/g, " ")}${c > 1 ? ` \u00d7${c}` : ""}`, "#d1c4e9",
                                                      "object", `object:${p.seat}:${k}`, plural(c, k.replace(/_/g, " ")), options))
            : [backs(p.object_count, "objects", `objects:${p.seat}:backs`, plural(p.object_count, "object face down"), {}, "object")] };
      blocks.push(playerPanel(match, p.seat, !over && view.current_seat === p.seat,
        [{ cls: "adventurers", key: `adventurers:${p.seat}`, label: "Party",
           title: "Adventurers: " + DG_ADVENTURERS.map(([k]) => `${k.replace("_", " ")} ${word(a[k], "DRAGONS_GOLD_ADVENTURER_STATE_")}`).join(", "),
           items: adventurers }, treasure, objects], options));
    }
    const height = stack(root, blocks);
    root.setAttribute("viewBox", `-4 -4 ${W + 8} ${height + 4}`);
    root.querySelector("desc").textContent =
        `Phase: ${word(view.phase, "DRAGONS_GOLD_PHASE_")} \u00b7 turn ${view.turns}` +
        ` \u00b7 dragon pile ${view.pile_size} \u00b7 bag ${view.bag_size} \u00b7 objects ${view.object_deck_size}` +
        (over ? ` \u00b7 ended: ${word(view.end_reason, "DRAGONS_GOLD_END_REASON_")}` : "");
    return root;
  }

  // ---- Frost Dragon's Treasure -----------------------------------------------

  const FROST_COLORS = { mountain: "#8d6e63", forest: "#2e7d32", river: "#1565c0", glacier: "#b2ebf2" };
  const FROST_SPACES = { "sleeping orc": "orc", "slippery bridge": "bridge", "leprechauns treasure": "gold",
                         catapult: "catapult", "mind the gap": "gap" };

  function frostName(card) {
    if (!card) return "?";
    if (!unset(card.joker)) return `${word(card.joker, "FROST_DRAGON_JOKER_")} joker`;
    return `${word(card.kingdom, "FROST_DRAGON_KINGDOM_")} ${card.rank}`;
  }

  // A Frost Dragon card: its rank big on its kingdom's colour, or a joker.
  function frostCard(c, w, h, cls, key, title, options) {
    if (!unset(c.joker)) {
      const joker = card(w, h, "#4a148c", [], cls, key, title, options, true);
      joker.node.append(text(w / 2, h / 2 + 4, "\u2605", "on-dark big"),
                        text(w / 2, h - 6, word(c.joker, "FROST_DRAGON_JOKER_").slice(0, w > 40 ? 10 : 4), "on-dark tiny"));
      return joker;
    }
    const kingdom = word(c.kingdom, "FROST_DRAGON_KINGDOM_");
    const dark = kingdom !== "glacier";
    const node = card(w, h, FROST_COLORS[kingdom] || "#eeeeee", [], cls, key, title, options, dark);
    const rank = { 11: "J", 12: "Q", 13: "K", 14: "A" }[c.rank] || String(c.rank);
    node.node.append(text(w / 2, h / 2 + 6, rank, `${dark ? "on-dark " : ""}big`),
                     text(w / 2, h - 6, kingdom.slice(0, w > 40 ? 8 : 3), `${dark ? "on-dark " : ""}tiny`));
    return node;
  }

  function frost_dragon(view, match, options = {}) {
    const over = !unset(view.end_reason);
    const root = table("frost_dragon", "The Frost Dragon's Treasure table", 0, over, "");
    const map = view.map || {};
    const blocks = [];
    // The map: a path of spaces winding down the table, the lair past the
    // finish, the action spaces marked, the adventurers on it.
    blocks.push((y) => {
      const h = heading(root, y, `The map (finish at ${map.finish || 0})`);
      const last = Math.max(map.last_space || 0, map.finish || 0, ...view.players.map((p) => p.space));
      const perRow = 9, step = 48;
      const centre = (n) => {
        const row = Math.floor(n / perRow), col = n % perRow;
        return [24 + step * (row % 2 ? perRow - 1 - col : col), 26 + 58 * row];
      };
      const group = s("g", { class: "map", role: "group", "aria-label": "The map" });
      group.append(s("polyline", { class: "path", points: Array.from({ length: last + 1 }, (_, n) => centre(n).join(",")).join(" ") }));
      for (let n = 0; n <= last; ++n) {
        const [cx, cy] = centre(n);
        const special = (map.action_spaces || []).find((a) => a.space === n);
        const kind = special ? word(special.kind, "FROST_DRAGON_ACTION_SPACE_KIND_") : "";
        const here = view.players.filter((p) => p.space === n).map((p) => `seat ${p.seat}`);
        const lair = n > (map.finish || 0);
        const title = `Space ${n}${n === map.finish ? " (the finish)" : lair ? " (the lair)" : ""}` +
                      (kind ? `: ${kind}` : "") + (here.length ? ` \u00b7 ${here.join(", ")}` : "");
        const space = thing(`space${here.length ? " occupied" : ""}${lair ? " lair" : ""}${kind ? " action" : ""}`,
                            `space:${n}`, title, options,
          kind ? s("rect", { x: -17, y: -17, width: 34, height: 34, rx: 4, class: "slot",
                             transform: "rotate(45)" })
               : s("circle", { r: n === map.finish ? 20 : 17, class: "slot" }),
          text(0, kind ? 0 : 5, String(n), "small"));
        if (kind) space.append(text(0, 12, FROST_SPACES[kind] || kind, "tiny"));
        space.setAttribute("data-space", String(n));
        group.append(at(space, cx, cy));
      }
      // The adventurers, above the spaces, apart where they share one.
      for (const p of view.players) {
        const [cx, cy] = centre(p.space);
        const sharing = view.players.filter((q) => q.space === p.space);
        const dx = 16 * (sharing.indexOf(p) - (sharing.length - 1) / 2);
        const pawn = thing("pawn", `pawn:${p.seat}`, `seat ${p.seat} on space ${p.space}`, {},
          s("g", { class: "body" }, s("circle", { cy: -14, r: 9, fill: SEAT_COLORS[p.seat % SEAT_COLORS.length], class: "pawn-head" }),
            text(0, -10, String(p.seat), "on-dark small")));
        group.append(at(pawn, cx + dx, cy - 8));
      }
      root.append(at(group, 0, y + h));
      return h + 58 * Math.ceil((last + 1) / perRow);
    });
    // The trick in the middle of the table.
    blocks.push((y) => {
      const c = view.challenge || {};
      const cards = c.cards || [];
      const trump = word(view.trump, "FROST_DRAGON_KINGDOM_");
      const trick = region("trick", "trick",
        cards.length ? cards.map((pc) => `seat ${pc.seat}: ${frostName(pc.card)}${pc.as && pc.as.rank ? ` as ${frostName(pc.as)}` : ""}`).join("; ")
                     : "no card yet", options);
      const frame = s("ellipse", { cx: W / 2, cy: 70, rx: W / 2 - 4, ry: 68, class: "felt" });
      trick.append(frame, text(W / 2, 18, `The trick \u00b7 trump ${trump || "\u2013"}` +
                                          (unset(c.lead_kingdom) ? "" : ` \u00b7 led ${word(c.lead_kingdom, "FROST_DRAGON_KINGDOM_")}`), "label"));
      const items = cards.map((pc) => {
        const drawn = frostCard(pc.card, 50, 72, "played", `played:${pc.seat}`,
                                `seat ${pc.seat}: ${frostName(pc.card)}${pc.as && pc.as.rank ? ` as ${frostName(pc.as)}` : ""}`, {});
        drawn.node.append(text(25, 86, `seat ${pc.seat}${pc.as && pc.as.rank ? ` as ${pc.as.rank}` : ""}`, "small"));
        return { w: 50, h: 90, node: drawn.node };
      });
      if (!items.length) trick.append(text(W / 2, 75, "no card yet", "label"));
      const width = items.length * 56;
      flow(trick, items, W / 2 - width / 2, 30, W, 6);
      root.append(at(trick, 0, y));
      return 140;
    });
    for (const p of view.players) {
      const hand = p.hand && p.hand.length
          ? { cls: "hand", key: `hand:${p.seat}`, label: "Hand", title: `Hand: ${p.hand.map(frostName).join(", ")}`,
              items: p.hand.map((c) => frostCard(c, 34, 50, "in-hand", `card:${c.id}`, frostName(c), options)) }
          : { cls: "hand", key: `hand:${p.seat}`, label: "Hand", title: `Hand: ${plural(p.cards_held, "card")}`,
              items: [backs(p.cards_held, "cards", `hand:${p.seat}:backs`, plural(p.cards_held, "card face down"), {})] };
      const boast = p.boast === undefined ? "\u2013" : p.boast;
      const position = { cls: "position", key: `position:${p.seat}`, label: "Quest",
        title: `Space ${p.space} \u00b7 threat ${p.threat} \u00b7 boast ${boast} \u00b7 challenges won ${p.won} \u00b7 treasures ${p.treasures}`,
        items: [chip(`space ${p.space}`, "#eeeeee", "stat", `space-of:${p.seat}`, `space ${p.space}`, {}),
                chip(`threat ${p.threat}`, "#ffcdd2", "stat", `threat:${p.seat}`, `threat ${p.threat}`, {}),
                chip(`boast ${boast}`, "#fff9c4", "stat", `boast:${p.seat}`, `boast ${boast}`, {}),
                chip(`won ${p.won}`, "#c8e6c9", "stat", `won:${p.seat}`, `challenges won ${p.won}`, {}),
                chip(`\u2666 ${p.treasures}`, "#ffe082", "stat", `treasures:${p.seat}`, `treasures ${p.treasures}`, {})] };
      blocks.push(playerPanel(match, p.seat, !over && view.seat_to_act === p.seat, [position, hand], options));
    }
    const height = stack(root, blocks);
    root.setAttribute("viewBox", `-4 -4 ${W + 8} ${height + 4}`);
    // A match the deck ended stopped as its next quest would have begun:
    // that quest (the view's) was never dealt.
    const cardsLeft = view.cards_in_match || 0;
    const quest = String(view.end_reason).endsWith("DECK_EXHAUSTED")
        ? `The deck ran out before quest ${view.quest} could begin (${cardsLeft} ` +
          `${cardsLeft === 1 ? "card" : "cards"} left for ${view.players.length} adventurers)`
        : `Quest ${view.quest} \u00b7 phase ${word(view.phase, "FROST_DRAGON_PHASE_")}`;
    root.querySelector("desc").textContent = quest + ` \u00b7 trump: ${word(view.trump, "FROST_DRAGON_KINGDOM_")}` +
        (over ? ` \u00b7 ended: ${word(view.end_reason, "FROST_DRAGON_END_REASON_")}` : "");
    return root;
  }

  // ---- Hedonia ---------------------------------------------------------------

  const HEDONIA_COLORS = ["#f8bbd0", "#d7ccc8", "#ffe0b2", "#dcedc8", "#b3e5fc", "#fff9c4", "#c5cae9",
                          "#ffcdd2", "#b2dfdb", "#ffccbc", "#e1bee7"];
  const HEDONIA_ASSETS = ["snorkel_pigs", "bearded_hoppers", "magic_carrots", "doom_snails", "royal_poofins",
                          "very_rare_eggs", "grungles", "deathslayers", "cursed_sushi", "red_snatchers", "misdirections"];

  function assetOne(plural_) {
    return plural_ === "cursed_sushi" ? "cursed sushi" : singular(plural_.replace(/_/g, " "));
  }

  function hedoniaChips(assets, keyOf, options) {
    return HEDONIA_ASSETS.filter((k) => assets && assets[k] > 0).map((k) =>
      chip(`${assetOne(k)}${assets[k] > 1 ? ` \u00d7${assets[k]}` : ""}`, HEDONIA_COLORS[HEDONIA_ASSETS.indexOf(k)],
           "asset", keyOf(k), counts({ [k]: assets[k] }), options));
  }

  function hedonia(view, match, options = {}) {
    const over = String(view.phase).endsWith("OVER");
    const root = table("hedonia", "The Hedonia table", 0, over, "");
    const blocks = [];
    const n = view.players.length;
    // The houses round the table, the gaps between neighbours with what is
    // offered and shared there, the King in the middle.
    blocks.push((y) => {
      const h = heading(root, y, `Round ${view.round} of ${view.rounds} \u00b7 play goes ${view.clockwise ? "clockwise \u21bb" : "counter-clockwise \u21ba"}`);
      const cx = W / 2, cy = 170, rx = 160, ry = 130;
      const angle = (seat) => -Math.PI / 2 + (2 * Math.PI * seat) / n;
      const round = s("g", { class: "round-table" }, s("ellipse", { cx, cy, rx: rx - 40, ry: ry - 40, class: "felt" }));
      const king = region("king", "king", `The King: ${counts(view.king)}`, options,
        s("path", { d: "M-18 -6 l6 -14 l6 10 l6 -14 l6 14 l6 -10 l6 14 z", class: "crown", transform: "translate(0,-18)" }),
        text(0, -2, "The King", "label"));
      flow(king, hedoniaChips(view.king, (k) => `king:${k}`, {}), -60, 6, 120, 3);
      round.append(at(king, cx, cy - 10));
      view.gaps.forEach((g, i) => {
        let a1 = angle(g.left_seat), a2 = angle(g.right_seat);
        if (Math.abs(a2 - a1) > Math.PI) a2 += a2 < a1 ? 2 * Math.PI : -2 * Math.PI;
        const mid = (a1 + a2) / 2;
        const offered = !unset(g.offered);
        const title = `Between seats ${g.left_seat} and ${g.right_seat}: ` +
                      (offered ? `${word(g.offered, "HEDONIA_ASSET_")} offered by seat ${g.offered_by}` : "no offer") +
                      (counts(g.shared) !== "none" ? ` \u00b7 shared: ${counts(g.shared)}` : "");
        const gap = thing("gap", `gap:${i}`, title, options);
        const label = offered ? word(g.offered, "HEDONIA_ASSET_") : "no offer";
        const w = Math.max(58, 7 * label.length + 12);
        gap.append(s("rect", { x: -w / 2, y: -13, width: w, height: 26, rx: 4,
                               class: offered ? "face" : "slot dashed",
                               fill: offered ? HEDONIA_COLORS[HEDONIA_ASSETS.findIndex((k) => assetOne(k) === label)] || "#eeeeee" : undefined }),
                   text(0, 5, label, "small"));
        const shared = total(g.shared);
        if (shared) gap.append(s("circle", { cx: w / 2, cy: -12, r: 9, class: "badge" }), text(w / 2, -8, String(shared), "on-dark tiny"));
        round.append(at(gap, cx + (rx - 62) * Math.cos(mid), cy + (ry - 44) * Math.sin(mid)));
      });
      for (const p of view.players) {
        const a = angle(p.seat);
        const acting = !over && view.active_seat === p.seat;
        const house = thing(`house${acting ? " acting" : ""}`, `house:${p.seat}`,
          `${seatName(match, p.seat)}: ${plural(p.hand_size, "card")} in hand, treasury ${total(p.treasury)}, power ${p.power_points}` +
          (over ? `, score ${p.score}` : ""), options,
          s("path", { d: "M-44 -8 l44 -20 l44 20 v30 h-88 z", class: "house-shape" }),
          s("circle", { cx: -30, cy: 4, r: 9, fill: SEAT_COLORS[p.seat % SEAT_COLORS.length] }),
          text(-30, 8.5, String(p.seat), "on-dark small"),
          text(8, 6, `${acting ? "\u25b6 " : ""}seat ${p.seat}`, "small"),
          text(0, 19, over ? `score ${p.score}` : `power ${p.power_points}`, "tiny"));
        round.append(at(house, cx + rx * Math.cos(a), cy + ry * Math.sin(a)));
      }
      root.append(at(round, 0, y + h));
      return h + 2 * cy - 10;
    });
    for (const p of view.players) {
      const hand = total(p.hand)
          ? { cls: "hand", key: `hand:${p.seat}`, label: "Hand", title: `Hand: ${counts(p.hand)}`,
              items: hedoniaChips(p.hand, (k) => `card:${p.seat}:${k}`, options) }
          : { cls: "hand", key: `hand:${p.seat}`, label: "Hand", title: `Hand: ${plural(p.hand_size, "card")}`,
              items: [backs(p.hand_size, "cards", `hand:${p.seat}:backs`, plural(p.hand_size, "card face down"), {})] };
      const treasury = { cls: "treasury", key: `treasury:${p.seat}`, label: "Treasury",
        title: `Treasury: ${counts(p.treasury)} \u00b7 power ${p.power_points}` + (over ? ` \u00b7 score ${p.score}` : ""),
        items: hedoniaChips(p.treasury, (k) => `treasury:${p.seat}:${k}`, {}) };
      blocks.push(playerPanel(match, p.seat, !over && view.active_seat === p.seat, [treasury, hand], options));
    }
    const height = stack(root, blocks);
    root.setAttribute("viewBox", `-4 -4 ${W + 8} ${height + 4}`);
    root.querySelector("desc").textContent =
        `Round ${view.round} of ${view.rounds} \u00b7 ${word(view.phase, "HEDONIA_PHASE_")} \u00b7 play goes ` +
        `${view.clockwise ? "clockwise" : "counter-clockwise"} \u00b7 deck ${view.deck_size} \u00b7 The King: ${counts(view.king)}`;
    return root;
  }

  // ---- A step, made visible ------------------------------------------------

  function offset(node) {
    const m = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(node.getAttribute("transform") || "");
    return m ? [Number(m[1]), Number(m[2])] : [0, 0];
  }

  function animate(before, after) {
    if (!before || !after || before.classList[1] !== after.classList[1]) return;
    const old = new Map();
    for (const node of before.querySelectorAll("[data-thing]")) {
      const title = node.querySelector(":scope > title");
      old.set(node.dataset.thing, { title: title ? title.textContent : "", node });
    }
    for (const node of after.querySelectorAll("[data-thing]")) {
      const was = old.get(node.dataset.thing);
      const title = node.querySelector(":scope > title");
      // Things that hold others show their change in those.
      if (!was) node.classList.add("entered");
      else if (title && was.title !== title.textContent && !node.querySelector("[data-thing]")) {
        node.classList.add("changed");
      }
      if (was && node.classList.contains("pawn")) {
        const [x0, y0] = offset(was.node), [x1, y1] = offset(node);
        if (x0 === x1 && y0 === y1) continue;
        const body = node.querySelector(".body");
        body.style.transform = `translate(${x0 - x1}px, ${y0 - y1}px)`;
        body.getBoundingClientRect();  // the old place, drawn before the move
        node.classList.add("moving");
        body.style.transform = "";
      }
    }
  }

  // Which drawn thing an action of each game stands for (the action as the
  // API's JSON gives it, under its game's name; `seat` the seat to act).
  const enumKey = (value, prefix) => String(value || "").replace(prefix, "").toLowerCase();
  const ACTION_THINGS = {
    village: (a) => (a.draw ? "deck" : a.buy ? `stall:${a.buy.stall || 0}` : null),
    dragons_gold: (a, seat) => (a.attack ? `dragon:${a.attack.slot || 0}`
      : a.use_object ? `object:${seat}:${enumKey(a.use_object.object, "DRAGONS_GOLD_OBJECT_")}` : null),
    frost_dragon: (a) => (a.play ? `card:${a.play.card || 0}` : null),
    hedonia: (a, seat) => {
      if (!a.offer) return null;
      const one = enumKey(a.offer.asset, "HEDONIA_ASSET_");
      const key = HEDONIA_ASSETS.find((k) => k === one || k === `${one}s`);
      return key ? `card:${seat}:${key}` : null;
    },
  };

  // options.actions for a seat's decision: each drawn thing that stands for
  // exactly one of the legal actions (the decision's legal_actions), keyed
  // to that action's index. A thing several actions share (a stall bought
  // with one payment or another, a dragon any of a party may attack) is
  // left to the page's list of actions.
  function actionKeys(game, seat, legal) {
    const thingOf = ACTION_THINGS[game];
    const found = new Map();
    for (const item of legal || []) {
      const key = thingOf && item.action && item.action[game] ? thingOf(item.action[game], seat) : null;
      if (key) found.set(key, found.has(key) ? null : item.index || 0);
    }
    const keys = {};
    for (const [key, index] of found) if (index !== null) keys[key] = index;
    return keys;
  }

  // Gives each thing marked with an action in `container` a transparent box
  // over its whole extent, so that a click anywhere on it lands on it (an
  // SVG group takes clicks only where it paints). Call once the drawing is
  // in the page: a box is measured from what is drawn.
  function hitAreas(container) {
    for (const node of container.querySelectorAll("svg.hoard-table [data-action]")) {
      const box = node.getBBox();
      node.prepend(s("rect", { class: "hit", x: box.x, y: box.y, width: box.width, height: box.height,
                               fill: "transparent" }));
    }
  }

  return { village, dragons_gold, frost_dragon, hedonia, animate, actionKeys, hitAreas, plural, singular };
})();
