import { useState } from 'react';
import { Form } from 'antd';
import { Errors, type ModelData, type ModelType } from '@loupe/contracts';
import { isApiError } from '@/api/client';
import { useTranslation } from '@/i18n';
import { useCreateModel } from './modelsApi';

export interface CreateModelValues {
  type?: ModelType;
  name: string;
  note?: string;
}

/**
 * The create form's state and submit, shared by the dialog and /creatModel2: trimmed values, a duplicate name
 * shown on the name field, any other refusal the client has not already reacted to shown above the form.
 */
export function useCreateModelForm(onCreated: (model: ModelData) => void) {
  const { t } = useTranslation(['models', 'errors']);
  const [form] = Form.useForm<CreateModelValues>();
  const create = useCreateModel();
  const [error, setError] = useState<string | null>(null);

  const submit = async (values: CreateModelValues) => {
    setError(null);
    try {
      const model = await create.mutateAsync({ type: values.type!, name: values.name.trim(), note: values.note?.trim() || undefined });
      onCreated(model);
    } catch (e) {
      if (isApiError(e) && e.code === Errors.modelNameExists.code) {
        form.setFields([{ name: 'name', errors: [e.message || t('errors:modelNameExists')] }]);
      } else if (!isApiError(e) || !e.handled) {
        setError(isApiError(e) ? e.message : t('common:errors.unknown'));
      }
    }
  };
  return { form, submit, error, pending: create.isPending };
}
