import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { Spin } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { AuthPaths } from '@loupe/contracts';
import { api } from '@/api/client';
import { setLanguage } from '@/i18n';
import { loadingPageReturn } from '@/layout/languageRoute';
import { getSession } from '@/stores/session';

/** Applies a language change, then returns to the page it came from (SPEC §2). */
export function LoadingPage() {
  const { search } = useLocation();
  const navigate = useNavigate();
  const queries = useQueryClient();

  useEffect(() => {
    let live = true;
    const { lang, to } = loadingPageReturn(search);
    // A signed-in user's choice is also the account's language, so the profile and the server's mails agree
    // with what the screen shows. Best effort: the switch itself never waits on or fails with the server.
    if (lang && getSession().token) {
      void api
        .put(AuthPaths.profile, { language: lang }, { silent: true })
        .then(() => queries.invalidateQueries({ queryKey: ['profile'] }))
        .catch(() => undefined);
    }
    void (lang ? setLanguage(lang) : Promise.resolve()).then(() => {
      if (live) navigate(to, { replace: true });
    });
    return () => {
      live = false;
    };
  }, [search, navigate, queries]);

  return (
    <div className="loupe-centered" data-testid="loading-page">
      <Spin size="large" />
    </div>
  );
}
