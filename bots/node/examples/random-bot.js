#!/usr/bin/env node
// A Hoard bot that plays a random legal action, in every game.
//
//   node bots/node/examples/random-bot.js --name jsrandom --key secret
'use strict';
const { run } = require('../hoard-bot');

run((decision) => Math.floor(Math.random() * decision.legalActions.length));
