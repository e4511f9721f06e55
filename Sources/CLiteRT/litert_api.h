/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* litert_api.h: the subset of LiteRT's C API (the litert/c headers of the LiteRT
 * 2.3 release; the wheel ships no headers) that litert_runtime.c calls, as
 * function-pointer types for dlsym. The struct layouts below are the API's
 * ABI-stable ones (LiteRtLayout is 68 bytes: rank:7, has_strides:1,
 * dimensions[8], strides[8]); the start-up self-test catches a runtime whose
 * ABI differs. */
#ifndef DM_LITERT_API_H
#define DM_LITERT_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int LiteRtStatus;               /* kLiteRtStatusOk = 0 */
typedef int LiteRtHwAcceleratorSet;     /* kLiteRtHwAcceleratorCpu = 1 */
typedef size_t LiteRtParamIndex;
typedef int LiteRtTensorBufferType;
typedef int LiteRtElementType;          /* kLiteRtElementTypeFloat32 = 1 */

typedef struct LiteRtEnvironmentT *LiteRtEnvironment;
typedef struct LiteRtModelT *LiteRtModel;
typedef struct LiteRtOptionsT *LiteRtOptions;
typedef struct LiteRtOpaqueOptionsT *LiteRtOpaqueOptions;
typedef struct LiteRtCompiledModelT *LiteRtCompiledModel;
typedef struct LiteRtSignatureT *LiteRtSignature;
typedef struct LiteRtTensorT *LiteRtTensor;
typedef struct LiteRtTensorBufferT *LiteRtTensorBuffer;
typedef struct LiteRtTensorBufferRequirementsT *LiteRtTensorBufferRequirements;
typedef struct LiteRtEnvOption LiteRtEnvOption;

#define DM_LITERT_OK 0
#define DM_LITERT_CPU 1
#define DM_LITERT_FLOAT32 1
#define DM_LITERT_MAX_RANK 8

typedef struct {
  unsigned int rank:7;
  unsigned int has_strides:1;
  int32_t dimensions[DM_LITERT_MAX_RANK];
  uint32_t strides[DM_LITERT_MAX_RANK];
} LiteRtLayout;

typedef struct {
  LiteRtElementType element_type;
  LiteRtLayout layout;
} LiteRtRankedTensorType;

/* X-macro: return type, name, parameters. */
#define DM_LITERT_FUNCTIONS(F) \
  F (LiteRtStatus, LiteRtCreateEnvironment, (int, const LiteRtEnvOption *, LiteRtEnvironment *)) \
  F (LiteRtStatus, LiteRtCreateModelFromFile, (LiteRtEnvironment, const char *, LiteRtModel *)) \
  F (void, LiteRtDestroyModel, (LiteRtModel)) \
  F (LiteRtStatus, LiteRtCreateOptions, (LiteRtOptions *)) \
  F (void, LiteRtDestroyOptions, (LiteRtOptions)) \
  F (LiteRtStatus, LiteRtSetOptionsHardwareAccelerators, (LiteRtOptions, LiteRtHwAcceleratorSet)) \
  F (LiteRtStatus, LiteRtCreateOpaqueOptions, (const char *, void *, void (*)(void *), LiteRtOpaqueOptions *)) \
  F (LiteRtStatus, LiteRtAddOpaqueOptions, (LiteRtOptions, LiteRtOpaqueOptions)) \
  F (LiteRtStatus, LiteRtCreateCompiledModel, (LiteRtEnvironment, LiteRtModel, LiteRtOptions, LiteRtCompiledModel *)) \
  F (void, LiteRtDestroyCompiledModel, (LiteRtCompiledModel)) \
  F (LiteRtStatus, LiteRtGetModelSignature, (LiteRtModel, LiteRtParamIndex, LiteRtSignature *)) \
  F (LiteRtStatus, LiteRtGetNumSignatureInputs, (LiteRtSignature, LiteRtParamIndex *)) \
  F (LiteRtStatus, LiteRtGetNumSignatureOutputs, (LiteRtSignature, LiteRtParamIndex *)) \
  F (LiteRtStatus, LiteRtGetSignatureInputTensorByIndex, (LiteRtSignature, LiteRtParamIndex, LiteRtTensor *)) \
  F (LiteRtStatus, LiteRtGetSignatureOutputTensorByIndex, (LiteRtSignature, LiteRtParamIndex, LiteRtTensor *)) \
  F (LiteRtStatus, LiteRtGetRankedTensorType, (LiteRtTensor, LiteRtRankedTensorType *)) \
  F (LiteRtStatus, LiteRtGetCompiledModelInputBufferRequirements, (LiteRtCompiledModel, LiteRtParamIndex, LiteRtParamIndex, LiteRtTensorBufferRequirements *)) \
  F (LiteRtStatus, LiteRtGetCompiledModelOutputBufferRequirements, (LiteRtCompiledModel, LiteRtParamIndex, LiteRtParamIndex, LiteRtTensorBufferRequirements *)) \
  F (LiteRtStatus, LiteRtGetTensorBufferRequirementsBufferSize, (LiteRtTensorBufferRequirements, size_t *)) \
  F (LiteRtStatus, LiteRtCreateTensorBufferFromHostMemory, (const LiteRtRankedTensorType *, void *, size_t, void (*)(void *), LiteRtTensorBuffer *)) \
  F (void, LiteRtDestroyTensorBuffer, (LiteRtTensorBuffer)) \
  F (LiteRtStatus, LiteRtRunCompiledModel, (LiteRtCompiledModel, LiteRtParamIndex, size_t, LiteRtTensorBuffer *, size_t, LiteRtTensorBuffer *))

#endif
