import { ExportPage } from './export/ExportPage';

/** /download/downloadModel: the trained model as ONNX, sized for the user's camera. */
export default function DownloadModel() {
  return <ExportPage kind="model" />;
}
