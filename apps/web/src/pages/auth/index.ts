import { lazy, type ComponentType } from 'react';

// Lazy: each screen loads with its first visit, so the sign-in page does not wait for the sign-up forms
// (routes/pages.tsx wraps pages in Suspense).
const ForgetEmail = lazy(() => import('./forgot/ForgetEmail'));
const ForgetJudge = lazy(() => import('./forgot/ForgetJudge'));
const ForgetPhone = lazy(() => import('./forgot/ForgetPhone'));
const ForgetSetPassword = lazy(() => import('./forgot/ForgetSetPassword'));
const ForgetVerify = lazy(() => import('./forgot/ForgetVerify'));
const FinishRegisterInfo = lazy(() => import('./passive/FinishRegisterInfo'));
const Logging = lazy(() => import('./passive/Logging'));
const PassiveRegister = lazy(() => import('./passive/PassiveRegister'));
const SetPassword = lazy(() => import('./passive/SetPassword'));
const SendVerifyPhone = lazy(() => import('./signin/SendVerifyPhone'));
const SignInHome = lazy(() => import('./signin/SignInHome'));
const SigninEmail = lazy(() => import('./signin/SigninEmail'));
const SigninEmailPassword = lazy(() => import('./signin/SigninEmailPassword'));
const SigninPhone = lazy(() => import('./signin/SigninPhone'));
const SigninPhonePassword = lazy(() => import('./signin/SigninPhonePassword'));
const SigninVerify = lazy(() => import('./signin/SigninVerify'));
const RegisteredCheck = lazy(() => import('./signup/RegisteredCheck'));
const RegisteredConfirm = lazy(() => import('./signup/RegisteredConfirm'));
const SendVerify = lazy(() => import('./signup/SendVerify'));
const SignUp = lazy(() => import('./signup/SignUp'));
const SignupEmail = lazy(() => import('./signup/SignupEmail'));
const SignupPhone = lazy(() => import('./signup/SignupPhone'));

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
