import { ExportPage } from './export/ExportPage';

/** /download/downloadSDK: the model with a runtime for CPU or an NVIDIA GPU generation (SPEC §9). */
export default function DownloadSDK() {
  return <ExportPage kind="sdk" />;
}
