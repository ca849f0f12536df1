import { Navigate } from 'react-router-dom';
import { MODEL_LIST_PATH } from '@/routes/table';

/** /creatModel: the create dialog over the model list, so closing it leaves the user among their models. */
export default function CreateModelPage() {
  return <Navigate to={`${MODEL_LIST_PATH}?create=1`} replace />;
}
