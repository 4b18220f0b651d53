import { render } from 'preact';
import { loadConfig } from './api/config.ts';
import { initSession } from './api/session.ts';
import { App } from './app.tsx';
import { setCurrency } from './format/numbers.ts';
import { setRealtime } from './components/live.ts';
import { labelTables } from './components/table-labels.ts';
import './styles.css';

const root = document.getElementById('app')!;

loadConfig()
  .then(async (config) => {
    setCurrency(config.currency, config.currencyDigits);
    setRealtime(config.realtime);
    await initSession(config);
    root.textContent = '';
    render(<App />, root);
    labelTables(root);
  })
  .catch((error: Error) => {
    root.innerHTML = '';
    const box = document.createElement('div');
    box.className = 'state error boot';
    box.setAttribute('role', 'alert');
    box.textContent = error.message;
    root.append(box);
  });
