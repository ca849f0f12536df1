import { Spin } from 'antd';
import { AppRoutes } from '@/routes/AppRoutes';
import { PhoneWarning } from '@/layout/PhoneWarning';
import { FeedbackBridge } from './FeedbackBridge';
import { useConfig } from './config';
import { useBoot } from './useBoot';

/** The shell: waits for the deployment config (it decides the route set), then renders the routes. */
export function App() {
  useBoot();
  const config = useConfig();
  return (
    <>
      <FeedbackBridge />
      <PhoneWarning />
      {config.isPending ? (
        <div className="loupe-centered" data-testid="app-loading">
          <Spin size="large" />
        </div>
      ) : (
        <AppRoutes />
      )}
    </>
  );
}
