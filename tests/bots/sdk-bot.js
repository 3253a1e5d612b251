#!/usr/bin/env node
// A bot on the Node SDK whose decisions go wrong, or count, for the SDK's tests.
//
//   sdk-bot.js illegal   decides an index past the end of the legal actions:
//                        the SDK answers again with the default action
//   sdk-bot.js slow      decides too slowly (2 s): the SDK answers the
//                        default action before the deadline
//   sdk-bot.js crash     throws in every decision: the SDK logs it and
//                        answers the default action
//   sdk-bot.js count     answers 1, then 2, 3... (how many decisions it has
//                        made), so a test tells a fresh decision from an
//                        answer sent again
'use strict';
const { run } = require('../../bots/node/hoard-bot');

const mode = process.argv[2];
let decisions = 0;
const decide = {
  illegal: (decision) => decision.legalActions.length,
  slow: () => new Promise((resolve) => setTimeout(() => resolve(0), 2000)),
  crash: () => { throw new Error('this bot fails on purpose'); },
  count: () => { decisions += 1; return decisions; },
}[mode];
if (!decide) {
  process.stderr.write('usage: sdk-bot.js illegal|slow|crash|count [flags]\n');
  process.exit(2);
}
run(decide, { argv: process.argv.slice(3) });
