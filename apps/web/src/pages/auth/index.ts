import type { ComponentType } from 'react';
import ForgetEmail from './forgot/ForgetEmail';
import ForgetJudge from './forgot/ForgetJudge';
import ForgetPhone from './forgot/ForgetPhone';
import ForgetSetPassword from './forgot/ForgetSetPassword';
import ForgetVerify from './forgot/ForgetVerify';
import FinishRegisterInfo from './passive/FinishRegisterInfo';
import Logging from './passive/Logging';
import PassiveRegister from './passive/PassiveRegister';
import SetPassword from './passive/SetPassword';
import SendVerifyPhone from './signin/SendVerifyPhone';
import SignInHome from './signin/SignInHome';
import SigninEmail from './signin/SigninEmail';
import SigninEmailPassword from './signin/SigninEmailPassword';
import SigninPhone from './signin/SigninPhone';
import SigninPhonePassword from './signin/SigninPhonePassword';
import SigninVerify from './signin/SigninVerify';
import RegisteredCheck from './signup/RegisteredCheck';
import RegisteredConfirm from './signup/RegisteredConfirm';
import SendVerify from './signup/SendVerify';
import SignUp from './signup/SignUp';
import SignupEmail from './signup/SignupEmail';
import SignupPhone from './signup/SignupPhone';

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
