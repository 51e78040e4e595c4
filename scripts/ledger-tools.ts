// `npm run tools:ledger`: installs what `admin books import --format
// hledger|beancount` runs (docs/guide/ledger-exchange.md "Import"): Debian's
// hledger and beancount in its venv under .cache/, the same way the tests
// install them (scripts/python-tools.ts), and prints where each is.
import { ensureBeanCheck, ensureHledger } from './python-tools.js';

const hledger = ensureHledger();
const beanCheck = ensureBeanCheck();
process.stdout.write(`hledger: ${hledger}\nbean-check: ${beanCheck}\n`);
