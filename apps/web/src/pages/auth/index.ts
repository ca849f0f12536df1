import type { ComponentType } from 'react';
import { lazyPage } from '@/routes/lazyPage';

// Lazy: each screen loads with its first visit, so the sign-in page does not wait for the sign-up forms
// (routes/pages.tsx wraps pages in Suspense).
const ForgetEmail = lazyPage(() => import('./forgot/ForgetEmail'));
const ForgetJudge = lazyPage(() => import('./forgot/ForgetJudge'));
const ForgetPhone = lazyPage(() => import('./forgot/ForgetPhone'));
const ForgetSetPassword = lazyPage(() => import('./forgot/ForgetSetPassword'));
const ForgetVerify = lazyPage(() => import('./forgot/ForgetVerify'));
const FinishRegisterInfo = lazyPage(() => import('./passive/FinishRegisterInfo'));
const Logging = lazyPage(() => import('./passive/Logging'));
const PassiveRegister = lazyPage(() => import('./passive/PassiveRegister'));
const SetPassword = lazyPage(() => import('./passive/SetPassword'));
const SendVerifyPhone = lazyPage(() => import('./signin/SendVerifyPhone'));
const SignInHome = lazyPage(() => import('./signin/SignInHome'));
const SigninEmail = lazyPage(() => import('./signin/SigninEmail'));
const SigninEmailPassword = lazyPage(() => import('./signin/SigninEmailPassword'));
const SigninPhone = lazyPage(() => import('./signin/SigninPhone'));
const SigninPhonePassword = lazyPage(() => import('./signin/SigninPhonePassword'));
const SigninVerify = lazyPage(() => import('./signin/SigninVerify'));
const RegisteredCheck = lazyPage(() => import('./signup/RegisteredCheck'));
const RegisteredConfirm = lazyPage(() => import('./signup/RegisteredConfirm'));
const SendVerify = lazyPage(() => import('./signup/SendVerify'));
const SignUp = lazyPage(() => import('./signup/SignUp'));
const SignupEmail = lazyPage(() => import('./signup/SignupEmail'));
const SignupPhone = lazyPage(() => import('./signup/SignupPhone'));

/** Public account screens keyed by route path (SPEC §2); the shell's route table mounts them in its public layout. */
export const authPages: Record<string, ComponentType> = {
  '/signin': SignInHome,
  '/signin-home': SignInHome,
  '/signinEmail': SigninEmail,
  '/signinEmailPassword': SigninEmailPassword,
  '/signinVerify': SigninVerify,
  '/signinPhone': SigninPhone,
  '/signinPhonePassword': SigninPhonePassword,
  '/send-verify-phone': SendVerifyPhone,
  '/signup': SignUp,
  '/signupEmail': SignupEmail,
  '/signupPhone': SignupPhone,
  '/send-verify': SendVerify,
  '/registered/check': RegisteredCheck,
  '/registered/comfirm': RegisteredConfirm,
  '/forget': ForgetJudge,
  '/forgetjudge': ForgetJudge,
  '/forgetEmail': ForgetEmail,
  '/forgetPhone': ForgetPhone,
  '/forgetVerify': ForgetVerify,
  '/forget-set-password': ForgetSetPassword,
  '/set-password': SetPassword,
  '/finish-register-info': FinishRegisterInfo,
  '/PassiveRegister': PassiveRegister,
  '/logging': Logging,
};
