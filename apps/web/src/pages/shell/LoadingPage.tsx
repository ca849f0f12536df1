import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { Spin } from 'antd';
import { setLanguage } from '@/i18n';
import { loadingPageReturn } from '@/layout/languageRoute';

/** Applies a language change, then returns to the page it came from (SPEC §2). */
export function LoadingPage() {
  const { search } = useLocation();
  const navigate = useNavigate();

  useEffect(() => {
    let live = true;
    const { lang, to } = loadingPageReturn(search);
    void (lang ? setLanguage(lang) : Promise.resolve()).then(() => {
      if (live) navigate(to, { replace: true });
    });
    return () => {
      live = false;
    };
  }, [search, navigate]);

  return (
    <div className="loupe-centered" data-testid="loading-page">
      <Spin size="large" />
    </div>
  );
}
