import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from '@/i18n';
import { App } from '@/app/App';
import { Providers } from '@/app/Providers';
import './styles.css';

// A saved language other than English arrives as its own chunk; rendering waits for it so no English flashes first.
void i18nReady.then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Providers>
        <App />
      </Providers>
    </StrictMode>,
  ),
);
